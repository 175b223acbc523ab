/**
 * Mocha's settings for every test tier (CONTRIBUTING.md, "Test tiers"). `npm test` runs them all; `TEST_TIER`
 * (set by `npm run test:unit`, `test:e2e`, `test:browser`, `test:deploy`) runs one:
 * - unit: the libraries' and services' own tests, in process;
 * - e2e: the system through its HTTP API (real PostgreSQL, Redis, receivers, processes), faults and fuzz included;
 * - browser: the pages in headless Chromium;
 * - deploy: the image, compose, Kubernetes manifests, graceful shutdown and the standalone launcher.
 */
const lookupFiles = require('mocha/lib/cli/lookup-files');

const FAULTS = 'test/dist/e2e/faults/**/*.test.js';
const E2E_BUT_FAULTS = ['test/dist/e2e/*.test.js', 'test/dist/e2e/!(pages|deployment|faults)/**/*.test.js'];
const TIERS = {
  unit: { spec: ['libs/*/dist/test/**/*.test.js', 'services/*/dist/test/**/*.test.js'] },
  // Everything under test/dist/e2e but the browser's and the deploy tier's folders: no file is in two tiers,
  // so `npm test` runs each once.
  e2e: { spec: [FAULTS, ...E2E_BUT_FAULTS] },
  browser: { spec: ['test/dist/e2e/pages/**/*.test.js'] },
  deploy: { spec: ['test/dist/e2e/deployment/**/*.test.js', 'tools/dist/test/**/*.test.js'] },
};

const tier = process.env.TEST_TIER;
if (tier && !TIERS[tier]) throw new Error(`TEST_TIER must be one of ${Object.keys(TIERS).join(', ')}, not "${tier}"`);

/** The files a glob names now (none before the build: mocha then says so for the glob itself). */
function filesOf(glob) {
  try {
    return lookupFiles(glob, ['.js'], false);
  } catch {
    return [glob];
  }
}

/** `spread` placed evenly among `among`, one before every so many of these from the start; any left over last. */
function interleave(spread, among) {
  const every = Math.max(1, Math.floor(among.length / Math.max(1, spread.length)));
  const slot = (i) => (i % every === 0 ? i / every : -1);
  const placed = among.flatMap((file, i) => (slot(i) >= 0 && slot(i) < spread.length ? [spread[slot(i)], file] : [file]));
  return [...placed, ...spread.slice(Math.ceil(among.length / every))];
}

/**
 * All tiers, the long suites first: mocha hands each free worker the next file, so a long suite that starts
 * near the end runs alone while the other workers have nothing left (docs/operations/testing.md, "Order").
 * First the deploy tier's images and launchers; then the browser's suites and the first half of the API
 * suites, with the fault suites spread among them: those mostly wait on the product's own timeouts, and side
 * by side three of them left the two cores about 60 % idle for 20 s. The other half of the API suites and the
 * unit suites, many and short, fill the end.
 */
const apiSuites = E2E_BUT_FAULTS.flatMap(filesOf);
const half = Math.ceil(apiSuites.length / 2);
const ALL_TIERS = [
  ...TIERS.deploy.spec,
  ...interleave(filesOf(FAULTS), [...TIERS.browser.spec.flatMap(filesOf), ...apiSuites.slice(0, half)]),
  ...apiSuites.slice(half),
  ...TIERS.unit.spec,
];
const chosen = tier ? TIERS[tier] : { spec: ALL_TIERS };

/**
 * Suites run in parallel worker processes (TEST_JOBS, default 3; 1 runs them one after the other): each worker
 * has its own database, system and receivers (test/support/hooks.ts), and a suite makes its own companies, so
 * suites never share state. Two jobs took the whole run from about 15 to 10 minutes on a 2-core machine; on
 * the same machine three take 228–233 s against 250 s for two (a suite waiting on a timeout leaves a core to
 * the others), and four no less than three (docs/operations/testing.md).
 */
const jobs = Number(process.env.TEST_JOBS || 3);
if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`TEST_JOBS must be a whole number of at least 1, not "${process.env.TEST_JOBS}"`);

module.exports = {
  spec: chosen.spec,
  parallel: jobs > 1,
  jobs,
  require: ['test/dist/support/hooks.js'],
  reporter: 'test/support/reporter.js',
  timeout: 20000,
  'enable-source-maps': true,
  exit: true,
};

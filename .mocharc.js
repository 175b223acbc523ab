/**
 * Mocha's settings for every test tier (CONTRIBUTING.md, "Test tiers"). `npm test` runs them all; `TEST_TIER`
 * (set by `npm run test:unit`, `test:e2e`, `test:browser`, `test:deploy`) runs one:
 * - unit: the libraries' and services' own tests, in process;
 * - e2e: the system through its HTTP API (real PostgreSQL, Redis, receivers, processes), faults and fuzz included;
 * - browser: the pages in headless Chromium;
 * - deploy: the image, compose, Kubernetes manifests, graceful shutdown and the standalone launcher.
 */
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

/**
 * All tiers, the long suites first: mocha hands each free worker the next file, so a long suite that starts
 * near the end runs alone while the other workers have nothing left (docs/operations/testing.md, "Order").
 * First the deploy tier's images and launchers, then the fault suites (long too: they wait on the product's own
 * timeouts), then the browser, and last the many short API and unit suites, which fill the end.
 */
const ALL_TIERS = [...TIERS.deploy.spec, FAULTS, ...TIERS.browser.spec, ...E2E_BUT_FAULTS, ...TIERS.unit.spec];
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

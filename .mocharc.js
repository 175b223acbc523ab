/**
 * Mocha's settings for every test tier (CONTRIBUTING.md, "Test tiers"). `npm test` runs them all; `TEST_TIER`
 * (set by `npm run test:unit`, `test:e2e`, `test:browser`, `test:deploy`) runs one:
 * - unit: the libraries' and services' own tests, in process;
 * - e2e: the system through its HTTP API (real PostgreSQL, Redis, receivers, processes), faults and fuzz included;
 * - browser: the pages in headless Chromium;
 * - deploy: the image, compose, Kubernetes manifests, graceful shutdown and the standalone launcher.
 */
const TIERS = {
  unit: { spec: ['libs/*/dist/test/**/*.test.js', 'services/*/dist/test/**/*.test.js'] },
  e2e: { spec: ['test/dist/e2e/**/*.test.js'], ignore: ['test/dist/e2e/pages/**', 'test/dist/e2e/deployment/**'] },
  browser: { spec: ['test/dist/e2e/pages/**/*.test.js'] },
  deploy: { spec: ['test/dist/e2e/deployment/**/*.test.js', 'tools/dist/test/**/*.test.js'] },
};

const tier = process.env.TEST_TIER;
if (tier && !TIERS[tier]) throw new Error(`TEST_TIER must be one of ${Object.keys(TIERS).join(', ')}, not "${tier}"`);
// All tiers: every spec of each; the e2e tier's `ignore` only separates it from browser and deploy.
const chosen = tier ? TIERS[tier] : { spec: Object.values(TIERS).flatMap((t) => t.spec) };

module.exports = {
  spec: chosen.spec,
  ignore: chosen.ignore ?? [],
  require: ['test/dist/support/hooks.js'],
  reporter: 'test/support/reporter.js',
  timeout: 20000,
  'enable-source-maps': true,
  exit: true,
};

'use strict';
/**
 * Benchmark scenarios. Each compares the system with a raw baseline run by the benchmark itself, or (check-rules)
 * times one run against a fixed target. Companies are seeded through the public API, once per run of the
 * bench, and shared by the scenarios that use the same data:
 *
 *  booking       POST /api/v1/widget/{id}/transaction/ subtract 1, random over 1,000 products × 5 locations,
 *                vs the minimal SQL (BEGIN; conditional UPDATE of the balance; INSERT of the movement; COMMIT)
 *  hot-row       the same on one balance (every request on one row), vs the same minimal SQL on that row;
 *                by default at 8, 20 and 64 connections
 *  widget-1000   GET /api/v1/widget/ for 1,000 products stocked in 5 locations, vs its products query
 *  widget-100    the same for 100 products
 *  gateway-hop   GET /api/v1/widget/locations/ through the gateway, vs straight to the inventory service with
 *                an internal token
 *  check-rules   `check_rules` for a company of 5,000 products below their min_stock: seconds of the run that
 *                opens their 5,000 events
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { mapLimit } = require('./client');
const { bookRaw, widgetListSql } = require('./baseline-sql');

const ROOT = path.resolve(__dirname, '..');
const SEED_CONCURRENCY = 16;
const BOOKING_STOCK = 1_000_000;
const HOT_ROW_STOCK = 100_000_000;

/** A company with its admin's access token, its widget key and its two system locations. */
async function seedCompany(api, label) {
  const suffix = randomBytes(4).toString('hex');
  const username = `bench_${label}_${suffix}`;
  const password = `${randomBytes(12).toString('base64url')}-Bench`;
  const registered = await api.post('/api/v1/register/', { company_name: `Bench ${label} ${suffix}`, username, password });
  const { access } = await api.post('/api/token/', { username, password });
  const virtual = await api.get('/api/v1/locations/?type=VIRTUAL', { token: access });
  const system = (name) => {
    const found = virtual.results.find((l) => l.is_system && l.name === name);
    if (!found) throw new Error(`the company has no ${name} location`);
    return found.id;
  };
  return {
    id: registered.company.id,
    token: access,
    apiKey: registered.api_key.key,
    apiKeyId: registered.api_key.id,
    inbound: system('Inbound'),
    outbound: system('Outbound'),
  };
}

async function createLocations(api, company, count) {
  return mapLimit(
    Array.from({ length: count }, (_, i) => i),
    SEED_CONCURRENCY,
    async (i) => api.post('/api/v1/locations/', { name: `Warehouse ${i + 1}`, type: 'WAREHOUSE' }, { token: company.token }),
  );
}

/** Products through the import endpoint (one request, at most 5,000). */
async function importProducts(api, company, count, engineConfig = { engine_type: 'counter' }) {
  const products = Array.from({ length: count }, (_, i) => ({
    sku: `SKU-${String(i).padStart(5, '0')}`,
    name: `Product ${String(i).padStart(5, '0')}`,
    profile: 'STANDARD',
    engine_config: engineConfig,
  }));
  const imported = await api.post('/api/v1/product-models/import/', { products }, { token: company.token });
  if (imported.imported !== count) throw new Error(`imported ${imported.imported} products, expected ${count}`);
  return imported.products;
}

/** Additions through the core ledger endpoint (a movement from the company's Inbound). */
async function addStock(api, company, bookings) {
  await mapLimit(bookings, SEED_CONCURRENCY, async ({ productId, locationId, quantity }) =>
    api.post(
      '/api/v1/movements/',
      { product_id: productId, from_location_id: company.inbound, to_location_id: locationId, quantity, reason: 'bench seed' },
      { token: company.token },
    ),
  );
}

/** A company of `products` products, each stocked with `quantity` in each of 5 locations. */
async function seedCatalog(api, log, label, products, quantity) {
  const company = await seedCompany(api, label);
  const locations = await createLocations(api, company, 5);
  log(`${label}: importing ${products} products, booking ${products * 5} additions`);
  const rows = await importProducts(api, company, products);
  const bookings = [];
  for (const p of rows) for (const l of locations) bookings.push({ productId: p.id, locationId: l.id, quantity });
  await addStock(api, company, bookings);
  const list = await api.get('/api/v1/widget/', { apiKey: company.apiKey });
  const listed = list.products.length + list.poly_products.length;
  if (listed !== products) throw new Error(`the widget lists ${listed} products, expected ${products}`);
  return { company, products: rows.map((p) => p.id), locations: locations.map((l) => l.id) };
}

/** Seeds shared by several scenarios, made on first use. */
const seeds = {
  'catalog-1000': ({ api, log }) => seedCatalog(api, log, 'catalog-1000', 1000, BOOKING_STOCK),
  'catalog-100': ({ api, log }) => seedCatalog(api, log, 'catalog-100', 100, 50),
  'hot-row': async ({ api }) => {
    const company = await seedCompany(api, 'hot-row');
    const [location] = await createLocations(api, company, 1);
    const [product] = await importProducts(api, company, 1);
    await addStock(api, company, [{ productId: product.id, locationId: location.id, quantity: HOT_ROW_STOCK }]);
    return { company, products: [product.id], locations: [location.id] };
  },
  breaching: async ({ api, log }) => {
    const company = await seedCompany(api, 'check-rules');
    log('check-rules: importing 5,000 products below their min_stock (no stock at all)');
    await importProducts(api, company, 5000, { engine_type: 'counter', min_stock: 10 });
    const empty = await seedCompany(api, 'check-rules-empty');
    return { company, empty };
  },
};

const pick = (list) => list[Math.floor(Math.random() * list.length)];

/** autocannon options for subtracting 1 from a random (product, location) of `seed` per request. */
function bookingRequest(seed) {
  const headers = { 'x-api-key': seed.company.apiKey, 'content-type': 'application/json' };
  return {
    method: 'POST',
    headers,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => ({
          ...req,
          path: `/api/v1/widget/${pick(seed.products)}/transaction/`,
          body: JSON.stringify({ operation: 'subtract', quantity: 1, location_id: pick(seed.locations), reason: 'bench' }),
        }),
      },
    ],
  };
}

/** The raw baseline's job: the same booking (random product and location of `seed`) in minimal SQL. */
function rawBooking(seed) {
  return (client) =>
    bookRaw(client, {
      companyId: seed.company.id,
      productId: pick(seed.products),
      locationId: pick(seed.locations),
      outboundId: seed.company.outbound,
      actorId: seed.company.apiKeyId,
    });
}

/** Ledger and balances of a seeded company agree (the system's and the raw baseline's bookings alike). */
async function stockCheck(ctx, seed) {
  if (!ctx.db) return 'stock not checked (no database)';
  const { rows } = await ctx.db.query(
    `WITH ledger AS (
       SELECT product_id, location_id, SUM(q) AS q FROM (
         SELECT product_id, to_location_id AS location_id, quantity AS q FROM stock_movements WHERE company_id = $1
         UNION ALL
         SELECT product_id, from_location_id, -quantity FROM stock_movements WHERE company_id = $1) m
       GROUP BY product_id, location_id)
     SELECT count(*)::int AS wrong, (SELECT count(*)::int FROM stock_movements WHERE company_id = $1 AND kind = 'SUBTRACT') AS subtractions
       FROM stock_balances b LEFT JOIN ledger l USING (product_id, location_id)
      WHERE b.company_id = $1 AND b.quantity <> COALESCE(l.q, 0)`,
    [seed.company.id],
  );
  const { wrong, subtractions } = rows[0];
  return wrong === 0 ? `stock check ok (${subtractions} subtractions in the ledger)` : `STOCK MISMATCH: ${wrong} balances differ from the ledger`;
}

const scenarios = {
  booking: {
    seed: 'catalog-1000',
    needs: ['databaseUrl'],
    target: { ratio: 0.4 },
    system: bookingRequest,
    rawSql: rawBooking,
    check: stockCheck,
  },
  'hot-row': {
    seed: 'hot-row',
    needs: ['databaseUrl'],
    connections: [8, 20, 64],
    target: { ratio: 0.7 },
    system: bookingRequest,
    rawSql: rawBooking,
    check: stockCheck,
  },
  'widget-1000': {
    seed: 'catalog-1000',
    needs: ['databaseUrl'],
    target: { ratio: 0.5 },
    system: (seed) => ({ method: 'GET', path: '/api/v1/widget/', headers: { 'x-api-key': seed.company.apiKey } }),
    rawSql: (seed) => (client) => client.query({ name: 'bench-widget-list', text: widgetListSql(), values: [seed.company.id, null] }),
  },
  'widget-100': {
    seed: 'catalog-100',
    needs: ['databaseUrl'],
    target: { ratio: 0.3 },
    system: (seed) => ({ method: 'GET', path: '/api/v1/widget/', headers: { 'x-api-key': seed.company.apiKey } }),
    rawSql: (seed) => (client) => client.query({ name: 'bench-widget-list', text: widgetListSql(), values: [seed.company.id, null] }),
  },
  'gateway-hop': {
    seed: 'catalog-100',
    needs: ['inventoryUrl', 'internalJwtSecret'],
    target: { ratio: 0.85 },
    system: (seed) => ({ method: 'GET', path: '/api/v1/widget/locations/', headers: { 'x-api-key': seed.company.apiKey } }),
    /** Straight to the inventory service, with the internal token the gateway would send (re-signed as it ages). */
    rawHttp: (seed, target) => {
      const { InternalTokenSigner } = require('@pi/common');
      const signer = new InternalTokenSigner(target.internalJwtSecret);
      const identity = { companyId: seed.company.id, principal: { kind: 'api_key', id: seed.company.apiKeyId }, permissions: ['read', 'write'], tier: 'free' };
      return {
        url: target.inventoryUrl,
        method: 'GET',
        path: '/api/v1/widget/locations/',
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-internal-auth': signer.tokenFor(identity) } }) }],
      };
    },
  },
  'check-rules': {
    seed: 'breaching',
    needs: ['databaseUrl'],
    target: { seconds: 1.5 },
    timed: true,
    /** Wall-clock seconds of `npm run check_rules -- --company <id>` (the built CLI), for the opening run and two references. */
    async run(ctx, seed) {
      const empty = await checkRulesRun(ctx, seed.empty.id);
      const opening = await checkRulesRun(ctx, seed.company.id);
      const again = await checkRulesRun(ctx, seed.company.id);
      const opened = /events opened: (\d+)/.exec(opening.stdout)?.[1];
      const note =
        `events opened: ${opened ?? '?'}; a run with nothing to evaluate (process start, connect): ${empty.seconds.toFixed(2)} s; ` +
        `the same run again (events already open): ${again.seconds.toFixed(2)} s` +
        (opened === '5000' ? '' : ' — EXPECTED 5000 EVENTS');
      return { seconds: opening.seconds, note, failed: opened !== '5000' };
    },
  },
};

/** Runs the built check_rules CLI for one company on the system's database; resolves its wall-clock seconds and output. */
function checkRulesRun(ctx, companyId) {
  const cli = path.join(ROOT, 'services/monitor/dist/src/check-rules/cli.js');
  // A standalone system's database and secrets are found through its DATA_DIR, as `npm run check_rules` does.
  const env = { ...process.env };
  delete env.REDIS_URL;
  if (ctx.target.dataDir) {
    delete env.DATABASE_URL;
    env.DATA_DIR = ctx.target.dataDir;
  } else env.DATABASE_URL = ctx.target.databaseUrl;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [cli, '--company', companyId], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('exit', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) reject(new Error(`check_rules exited ${code}: ${stderr || stdout}`));
      else resolve({ seconds, stdout });
    });
  });
}

module.exports = { scenarios, seeds };

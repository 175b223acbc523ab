'use strict';
/**
 * Benchmark scenarios. Each seeds a fresh company of its own through the public API (registration, bearer
 * token for the catalog and the core ledger endpoint), then loads one widget endpoint with autocannon.
 *
 *  widget-list  GET /api/v1/widget/ for a company of 1,000 products stocked in 5 locations (5,000 balances)
 *  subtract     POST /api/v1/widget/{id}/transaction/ {operation: subtract, quantity: 1} from N concurrent
 *               clients, all on one product at one location (the hottest row the ledger has); afterwards the
 *               remaining stock must equal the seeded stock minus the successful subtractions
 */
const { randomBytes } = require('node:crypto');
const { mapLimit } = require('./client');

const SEED_CONCURRENCY = 16;

/** A company with its admin's access token, its widget key and its Inbound location. */
async function seedCompany(api, label) {
  const suffix = randomBytes(4).toString('hex');
  const username = `bench_${label}_${suffix}`;
  const password = randomBytes(12).toString('base64url');
  const registered = await api.post('/api/v1/register/', { company_name: `Bench ${label} ${suffix}`, username, password });
  const { access } = await api.post('/api/token/', { username, password });
  const virtual = await api.get('/api/v1/locations/?type=VIRTUAL', { token: access });
  const inbound = virtual.results.find((l) => l.is_system && l.name === 'Inbound');
  if (!inbound) throw new Error('the company has no Inbound location');
  return { token: access, apiKey: registered.api_key.key, inbound: inbound.id };
}

async function createLocations(api, company, count) {
  return mapLimit(Array.from({ length: count }, (_, i) => i), SEED_CONCURRENCY, async (i) =>
    api.post('/api/v1/locations/', { name: `Warehouse ${i + 1}`, type: 'WAREHOUSE' }, { token: company.token }),
  );
}

async function createProducts(api, company, count) {
  return mapLimit(Array.from({ length: count }, (_, i) => i), SEED_CONCURRENCY, async (i) =>
    api.post(
      '/api/v1/product-models/',
      { sku: `SKU-${String(i).padStart(5, '0')}`, name: `Product ${i}`, profile: 'STANDARD', engine_config: { engine_type: 'counter' } },
      { token: company.token },
    ),
  );
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

/** The number in a stock_display such as "9999871 pcs". */
const displayedQuantity = (display) => Number(String(display).split(' ')[0]);

const scenarios = {
  'widget-list': {
    describe: 'GET /api/v1/widget/ (1,000 products in 5 locations)',
    async seed(api, log) {
      const company = await seedCompany(api, 'list');
      const locations = await createLocations(api, company, 5);
      log('widget-list: creating 1,000 products');
      const products = await createProducts(api, company, 1000);
      log('widget-list: booking 5,000 additions (every product in every location)');
      const bookings = [];
      products.forEach((p, i) => locations.forEach((l, j) => bookings.push({ productId: p.id, locationId: l.id, quantity: ((i * 7 + j * 13) % 50) + 1 })));
      await addStock(api, company, bookings);
      const list = await api.get('/api/v1/widget/', { apiKey: company.apiKey });
      const listed = list.products.length + list.poly_products.length;
      if (listed !== 1000) throw new Error(`the widget lists ${listed} products, expected 1000`);
      return { company };
    },
    request: ({ company }) => ({ path: '/api/v1/widget/', method: 'GET', headers: { 'x-api-key': company.apiKey } }),
  },

  subtract: {
    describe: 'POST /api/v1/widget/{id}/transaction/ subtract 1 (one product, one location)',
    initialStock: 10_000_000,
    async seed(api) {
      const company = await seedCompany(api, 'subtract');
      const [location] = await createLocations(api, company, 1);
      const [product] = await createProducts(api, company, 1);
      await addStock(api, company, [{ productId: product.id, locationId: location.id, quantity: scenarios.subtract.initialStock }]);
      return { company, product, location };
    },
    request: ({ company, product, location }) => ({
      path: `/api/v1/widget/${product.id}/transaction/`,
      method: 'POST',
      headers: { 'x-api-key': company.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'subtract', quantity: 1, location_id: location.id, reason: 'bench' }),
    }),
    /**
     * The remaining stock must equal the seeded stock minus the SUBTRACT movements in the ledger, and the
     * ledger must hold at least every subtraction answered 2xx (it may hold a few more: requests still in
     * flight when autocannon stopped counting, at most one per connection and run).
     */
    async check(api, { company, product }, succeeded) {
      // Requests autocannon gave up on at the end of its run may still be booking: let them finish.
      await new Promise((r) => setTimeout(r, 2000));
      const list = await api.get('/api/v1/widget/', { apiKey: company.apiKey });
      const row = [...list.products, ...list.poly_products].find((p) => p.id === product.id);
      const remaining = displayedQuantity(row.stock_display);
      const ledger = await api.get(`/api/v1/movements/?product_id=${product.id}&kind=SUBTRACT&page_size=1`, { token: company.token });
      const booked = ledger.count;
      if (remaining !== scenarios.subtract.initialStock - booked) return `STOCK MISMATCH: ${remaining} left after ${booked} booked subtractions`;
      if (booked < succeeded) return `LEDGER MISMATCH: ${booked} subtractions booked, ${succeeded} answered 2xx`;
      return `stock check ok: ${booked} booked (${succeeded} counted 2xx), ${remaining} left`;
    },
  },
};

module.exports = { scenarios };

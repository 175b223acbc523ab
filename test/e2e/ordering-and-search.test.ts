/**
 * `ordering`, `search` and the name/code filters on every list (docs/api/ordering-and-search.md). Two
 * companies hold records with the very same names and codes, so every search and filter also proves that it
 * never answers another company's rows. `%` and `_` in a search match themselves: each searchable list holds a
 * record with the literal text `50%_` and one with `50x_` / `50xo`, which an unescaped LIKE would also match.
 */
import { expect } from 'chai';
import { ApiResponse, get, post } from '../support/api';
import { TestCompany, buildApiKey, buildCompany, buildLocation, buildProduct, buildUser, unique } from '../support/builders';
import { query } from '../support/sql';
import { buildChannel, buildDelivery, buildEvent } from './monitor/helpers';

interface World {
  company: TestCompany;
  products: { apple: { id: string; sku: string }; banana: { id: string; sku: string } };
  locations: { aisle: { id: string; name: string }; bay: { id: string; name: string } };
  batchCode: string;
  batchId: string;
}

/** The same records, by name, in any company: `tag` makes the names unique to this run, not to the company. */
async function buildWorld(company: TestCompany, tag: string): Promise<World> {
  const auth = { token: company.token };
  const ok = (res: ApiResponse, status = 201) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    return res.body;
  };
  const apple = await buildProduct(company, { sku: `APPLE-${tag}`, name: `apple 50%_off ${tag}` });
  const banana = await buildProduct(company, { sku: `BANANA-${tag}`, name: `banana 50x_off ${tag}` });
  await buildProduct(company, { sku: `CHERRY-${tag}`, name: `cherry ${tag}` });
  const aisle = await buildLocation(company, `aisle 50%_a ${tag}`);
  const bay = await buildLocation(company, `bay 50xoa ${tag}`);
  ok(await post('/api/v1/locations/', { name: `shelf ${tag}`, type: 'SHELF', parent_id: aisle.id }, auth));
  // Movements: reasons with and without the literal text, quantities and kinds to sort by.
  for (const [product, location, quantity, reason] of [
    [apple, aisle, 3, `restock 50%_x ${tag}`],
    [banana, bay, 5, `count 50x_x ${tag}`],
    [apple, bay, 7, `delivery ${tag}`],
  ] as const) {
    ok(
      await post(`/api/v1/widget/${product.id}/transaction/`, { operation: 'add', quantity, location_id: location.id, reason }, { apiKey: company.apiKey }),
      200,
    );
  }
  ok(await post('/api/v1/movements/', { product_id: apple.id, from_location_id: bay.id, to_location_id: aisle.id, quantity: 1, reason: `move ${tag}` }, auth));
  const batchProduct = await buildProduct(company, { profile: 'BATCH', sku: `LOTS-${tag}`, name: `lots ${tag}` });
  const batch = ok(await post('/api/v1/batches/', { product_id: batchProduct.id, code: `LOT50%_A${tag}`, expiration_date: '2031-01-01' }, auth));
  ok(await post('/api/v1/batches/', { product_id: batchProduct.id, code: `LOT50X_A${tag}`, expiration_date: '2030-01-01' }, auth));
  ok(
    await post(
      `/api/v1/widget/${batchProduct.id}/transaction/`,
      { operation: 'add', quantity: 2, location_id: bay.id, reason: 'batch in', batch_id: batch.id },
      { apiKey: company.apiKey },
    ),
    200,
  );
  const serialized = await buildProduct(company, { profile: 'SERIALIZED', sku: `SER-${tag}`, name: `serial ${tag}` });
  ok(await post('/api/v1/items/', { product_id: serialized.id, location_id: aisle.id, serial_number: `SN50%_1${tag}` }, auth));
  ok(await post('/api/v1/items/', { product_id: serialized.id, location_id: bay.id, serial_number: `SN50X_1${tag}` }, auth));
  ok(await post('/api/v1/work-orders/', { number: `WO50%_${tag}`, title: `assemble ${tag}`, due_date: '2030-05-01' }, auth));
  ok(await post('/api/v1/work-orders/', { number: `WO50X_${tag}`, title: `paint 50%_ ${tag}`, status: 'IN_PROGRESS' }, auth));
  ok(await post('/api/v1/work-orders/', { number: `WO77_${tag}`, title: `pack ${tag}`, due_date: '2029-05-01' }, auth));
  ok(await post('/api/v1/qr-codes/', { count: 3 }, auth));
  await buildEvent(company, apple, { message: `Low 50%_off ${tag}`, severity: 'CRITICAL' });
  await buildEvent(company, banana, { message: `Low 50x_off ${tag}`, severity: 'INFO' });
  await buildEvent(company, apple, { message: `High ${tag}`, severity: 'WARNING', status: 'RESOLVED' });
  ok(await post('/api/v1/monitoring-rules/', { product_id: apple.id, trigger_type: 'THRESHOLD', condition_config: { max: 50 }, severity: 'CRITICAL' }, auth));
  ok(await post('/api/v1/monitoring-rules/', { product_id: banana.id, trigger_type: 'THRESHOLD', condition_config: { min: 1 }, severity: 'INFO' }, auth));
  const zulu = await buildChannel(company, { kind: 'EMAIL', name: `zulu ${tag}` });
  await buildChannel(company, { kind: 'EMAIL', name: `alpha ${tag}` });
  await buildDelivery(company, zulu.id, [{ ok: true, statusCode: 200 }]);
  await buildDelivery(company, zulu.id, [{ ok: false, statusCode: 500 }]);
  // Two monitor runs that checked this company (check_rules records them; written here directly).
  for (const minutesAgo of [30, 10]) {
    const [run] = await query<{ id: string }>(
      `INSERT INTO check_rules_runs (trigger, started_at, finished_at) VALUES ('command', now() - $1 * interval '1 minute', now()) RETURNING id`,
      [minutesAgo],
    );
    await query(
      `INSERT INTO check_rules_run_companies (run_id, company_id, status, started_at) VALUES ($1, $2, 'completed', now() - $3 * interval '1 minute')`,
      [run.id, company.id, minutesAgo],
    );
  }
  await buildUser(company, { username: unique('bob') });
  await buildUser(company, { username: unique('al') });
  await buildApiKey(company, { name: `zz ${tag}` });
  await buildApiKey(company, { name: `aa ${tag}` });
  return {
    company,
    products: { apple: { id: apple.id, sku: apple.sku }, banana: { id: banana.id, sku: banana.sku } },
    locations: { aisle, bay },
    batchCode: batch.code,
    batchId: batch.id,
  };
}

/** Every list and what it may be sorted by; `key` reads the field a sort should order (for value checks). */
const LISTS: { path: string; fields: string[] }[] = [
  { path: '/api/v1/product-models/', fields: ['name', 'sku', 'created_at'] },
  { path: '/api/v1/locations/', fields: ['name', 'type', 'created_at'] },
  { path: '/api/v1/stock/', fields: ['name', 'sku'] },
  { path: '/api/v1/movements/', fields: ['created_at', 'quantity', 'kind'] },
  { path: '/api/v1/items/', fields: ['serial_number', 'created_at'] },
  { path: '/api/v1/batches/', fields: ['code', 'expiration_date', 'created_at'] },
  { path: '/api/v1/work-orders/', fields: ['number', 'status', 'due_date', 'created_at'] },
  { path: '/api/v1/qr-codes/', fields: ['code', 'status', 'created_at'] },
  { path: '/api/v1/monitoring-rules/', fields: ['name', 'trigger_type', 'severity', 'source', 'product_id'] },
  { path: '/api/v1/events/', fields: ['created_at', 'severity', 'status'] },
  { path: '/api/v1/notification-channels/', fields: ['name', 'kind', 'created_at'] },
  { path: '/api/v1/notification-deliveries/', fields: ['created_at', 'status'] },
  { path: '/api/v1/check-rules/runs/', fields: ['started_at'] },
  { path: '/api/v1/users/', fields: ['username', 'role', 'created_at'] },
  { path: '/api/v1/api-keys/', fields: ['name', 'created_at', 'last_used_at'] },
];

/** The row's identity in a list (stock rows are products; runs have no id of their own). */
const rowKey = (r: Record<string, unknown>) => `${(r.id ?? r.product_id ?? r.run_id ?? JSON.stringify(r)) as string}`;

describe('ordering and search on every list', function () {
  this.timeout(120_000);
  let a: World;
  let b: World;
  const tag = unique('t');

  before(async () => {
    a = await buildWorld(await buildCompany(), tag);
    b = await buildWorld(await buildCompany(), tag);
  });

  const list = async (w: World, path: string, query: string) => {
    const res = await get(`${path}?page_size=500&${query}`, { token: w.company.token });
    expect(res.status, `${path}?${query}: ${JSON.stringify(res.body)}`).to.equal(200);
    return res.body.results as Record<string, any>[];
  };

  for (const { path, fields } of LISTS) {
    describe(`GET ${path}`, () => {
      for (const field of fields) {
        it(`sorts by ${field} both ways: -${field} is exactly the reverse of ${field} (ties broken by id)`, async () => {
          const asc = (await list(a, path, `ordering=${field}`)).map(rowKey);
          const desc = (await list(a, path, `ordering=-${field}`)).map(rowKey);
          expect(asc.length, 'the list has rows to sort').to.be.greaterThan(0);
          expect(desc).to.deep.equal([...asc].reverse());
        });
      }

      it('answers 400 naming ordering for an unknown field, a repeated field and an empty one', async () => {
        for (const bad of ['password_hash', `${fields[0]},${fields[0]}`, ',', '-', `${fields[0]};DROP TABLE users`]) {
          const res = await get(`${path}?ordering=${encodeURIComponent(bad)}`, { token: a.company.token });
          expect(res.status, bad).to.equal(400);
          expect(res.body.code).to.equal('validation_error');
          expect(res.body.details).to.have.property('ordering');
          expect(res.body.request_id).to.be.a('string');
        }
      });

      it('pages deterministically: the pages of a sort, put together, are the whole sorted list', async () => {
        const whole = (await list(a, path, `ordering=${fields[fields.length - 1]}`)).map(rowKey);
        const paged: string[] = [];
        for (let page = 1; page <= Math.ceil(whole.length / 2); page++) {
          const res = await get(`${path}?ordering=${fields[fields.length - 1]}&page=${page}&page_size=2`, { token: a.company.token });
          paged.push(...res.body.results.map(rowKey));
        }
        expect(paged).to.deep.equal(whole);
      });
    });
  }

  it('sorts by the values themselves: names, numbers, dates and severity rank, in both directions', async () => {
    const names = (await list(a, '/api/v1/product-models/', `search=${tag}&ordering=name`)).map((p) => p.name.split(' ')[0]);
    expect(names).to.deep.equal(['apple', 'banana', 'cherry', 'lots', 'serial']);
    const qty = (await list(a, '/api/v1/movements/', 'ordering=-quantity')).map((m) => m.quantity);
    expect(qty).to.deep.equal([...qty].sort((x, y) => y - x));
    const due = (await list(a, '/api/v1/work-orders/', 'ordering=due_date')).map((w) => w.due_date);
    expect(due).to.deep.equal(['2029-05-01', '2030-05-01', null]);
    const severities = (await list(a, '/api/v1/events/', 'ordering=-severity')).map((e) => e.severity);
    expect(severities).to.deep.equal(['CRITICAL', 'WARNING', 'INFO']);
    const rules = (await list(a, '/api/v1/monitoring-rules/', 'ordering=severity&source=rule')).map((r) => r.severity);
    expect(rules).to.deep.equal(['INFO', 'CRITICAL']);
    const channels = (await list(a, '/api/v1/notification-channels/', 'ordering=-name')).map((c) => c.name.split(' ')[0]);
    expect(channels).to.deep.equal(['zulu', 'alpha']);
  });

  it('sorts by several fields: the first decides, the next breaks its ties', async () => {
    const rows = await list(a, '/api/v1/movements/', 'ordering=kind,-quantity');
    const pairs = rows.map((m) => [m.kind, m.quantity] as [string, number]);
    const expected = [...pairs].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : y[1] - x[1]));
    expect(pairs).to.deep.equal(expected);
    expect(new Set(pairs.map((p) => p[0])).size, 'more than one kind').to.be.greaterThan(1);
    const orders = await list(a, '/api/v1/work-orders/', 'ordering=status,-number');
    expect(orders.map((w) => w.status)).to.deep.equal(['IN_PROGRESS', 'OPEN', 'OPEN']);
    expect(orders[1].number > orders[2].number).to.equal(true);
  });

  /** Each searchable list: the rows whose text holds the literal `50%_`, found by `search=50%_`. */
  const SEARCHES: { path: string; text: (r: Record<string, any>) => string; expect: number }[] = [
    { path: '/api/v1/product-models/', text: (r) => `${r.sku} ${r.name}`, expect: 1 },
    { path: '/api/v1/stock/', text: (r) => `${r.sku} ${r.name}`, expect: 1 },
    { path: '/api/v1/locations/', text: (r) => r.name, expect: 1 },
    { path: '/api/v1/movements/', text: (r) => r.reason, expect: 3 /* apple's three movements (one also by its reason) */ },
    { path: '/api/v1/items/', text: (r) => r.serial_number, expect: 1 },
    { path: '/api/v1/batches/', text: (r) => r.code, expect: 1 },
    { path: '/api/v1/work-orders/', text: (r) => `${r.number} ${r.title}`, expect: 2 },
    { path: '/api/v1/events/', text: (r) => r.message, expect: 1 },
  ];

  for (const s of SEARCHES) {
    it(`GET ${s.path}?search= matches % and _ literally, ignores case, and never answers another company's rows`, async () => {
      const found = await list(a, s.path, `search=${encodeURIComponent('50%_')}`);
      expect(found, JSON.stringify(found)).to.have.length(s.expect);
      const other = new Set((await list(b, s.path, '')).map(rowKey));
      expect(
        found.filter((r) => other.has(rowKey(r))),
        'rows of company B',
      ).to.deep.equal([]);
      if (s.path !== '/api/v1/movements/') for (const r of found) expect(s.text(r)).to.include('50%_');
      const upper = await list(a, s.path, `search=${encodeURIComponent(tag.toUpperCase())}`);
      const lower = await list(a, s.path, `search=${encodeURIComponent(tag)}`);
      expect(upper.map(rowKey)).to.deep.equal(lower.map(rowKey));
      expect(await list(a, s.path, `search=${encodeURIComponent('\\')}`)).to.deep.equal([]);
    });
  }

  it('GET /api/v1/movements/?search= finds movements by the reason and by the SKU or name of their product', async () => {
    const bySku = await list(a, '/api/v1/movements/', `search=${encodeURIComponent(a.products.apple.sku.toLowerCase())}`);
    expect(bySku.map((m) => m.product_id)).to.deep.equal([a.products.apple.id, a.products.apple.id, a.products.apple.id]);
    const byReason = await list(a, '/api/v1/movements/', 'search=DELIVERY');
    expect(byReason.map((m) => m.reason)).to.deep.equal([`delivery ${tag}`]);
  });

  it('GET /api/v1/qr-codes/?search= finds a code by a part of it and treats % as a character', async () => {
    const codes = await list(a, '/api/v1/qr-codes/', '');
    const found = await list(a, '/api/v1/qr-codes/', `search=${codes[0].code.slice(2, 9).toLowerCase()}`);
    expect(found.map((c) => c.code)).to.deep.equal([codes[0].code]);
    expect(await list(a, '/api/v1/qr-codes/', 'search=%25')).to.deep.equal([]);
  });

  it('answers 400 naming search for a search over 200 characters', async () => {
    const res = await get(`/api/v1/product-models/?search=${'x'.repeat(201)}`, { token: a.company.token });
    expect(res.status).to.equal(400);
    expect(res.body.details).to.have.property('search');
  });

  describe('filters by names and codes', () => {
    it("movements: sku, location_name and batch_code, ignoring case, only the company's own", async () => {
      const bySku = await list(a, '/api/v1/movements/', `sku=${a.products.banana.sku.toLowerCase()}`);
      expect(bySku.map((m) => m.product_id)).to.deep.equal([a.products.banana.id]);
      const byLocation = await list(a, '/api/v1/movements/', `location_name=${encodeURIComponent(a.locations.bay.name.toUpperCase())}`);
      expect(byLocation).to.have.length(5);
      for (const m of byLocation) expect([m.from_location_id, m.to_location_id]).to.include(a.locations.bay.id);
      const byBatch = await list(a, '/api/v1/movements/', `batch_code=${encodeURIComponent(a.batchCode.toLowerCase())}`);
      expect(byBatch.map((m) => m.batch_id)).to.deep.equal([a.batchId]);
      expect(await list(a, '/api/v1/movements/', 'sku=NO-SUCH-SKU')).to.deep.equal([]);
    });

    it('stock: sku narrows the products, location_name the quantities', async () => {
      const [apple] = await list(a, '/api/v1/stock/', `sku=${a.products.apple.sku}&location_name=${encodeURIComponent(a.locations.aisle.name)}`);
      expect(apple.product_id).to.equal(a.products.apple.id);
      expect(apple.total_quantity).to.equal(4);
      expect(apple.locations.map((l: { location_id: string }) => l.location_id)).to.deep.equal([a.locations.aisle.id]);
      expect(await list(a, '/api/v1/stock/', `sku=${a.products.apple.sku}`)).to.have.length(1);
    });

    it('items: sku and location_name', async () => {
      const items = await list(a, '/api/v1/items/', `sku=SER-${tag}&location_name=${encodeURIComponent(a.locations.bay.name)}`);
      expect(items.map((i) => i.serial_number)).to.deep.equal([`SN50X_1${tag}`]);
    });

    it('batches: sku and batch_code', async () => {
      expect(await list(a, '/api/v1/batches/', `sku=lots-${tag}`)).to.have.length(2);
      const [batch] = await list(a, '/api/v1/batches/', `batch_code=${encodeURIComponent(a.batchCode)}`);
      expect(batch.id).to.equal(a.batchId);
    });

    it('answers 400 naming the filter for an empty or overlong value', async () => {
      for (const [path, filter] of [
        ['/api/v1/movements/', 'sku'],
        ['/api/v1/stock/', 'location_name'],
        ['/api/v1/batches/', 'batch_code'],
      ]) {
        for (const value of ['', 'x'.repeat(201)]) {
          const res = await get(`${path}?${filter}=${value}`, { token: a.company.token });
          expect(res.status, `${path} ${filter}=${value.slice(0, 3)}`).to.equal(400);
          expect(res.body.details).to.have.property(filter);
        }
      }
    });
  });
});

/**
 * A balance has a largest value (below 10^14, what NUMERIC(20,6) held): a booking that would take one past it
 * answers 409 `balance_out_of_range` in the error shape, naming `quantity`, on every path that adds to a
 * balance (add, signed move in, transfer, core movements, serialized additions, items, batches), and books
 * nothing. The per-request cap (10^12) bounds one booking, not the sum of many, so the stock is brought near
 * the limit first: by one ledger movement and its balance written here, as a booking would write them.
 */
import { expect } from 'chai';
import { ApiResponse, post } from '../../support/api';
import { expectErrorShape } from '../../support/assertions';
import { TestCompany, TestProduct, addStock, buildCompany, buildLocation, buildProduct, unique } from '../../support/builders';
import { count, query, row } from '../../support/sql';
import { movementCount } from '../../support/stock';

const NEAR_LIMIT = '99999999999999';

/** One ADD movement from Inbound of `quantity` and the balance it makes, as the ledger books them. */
async function seedStock(company: TestCompany, productId: string, locationId: string, quantity: string, batchId: string | null = null) {
  await query(
    `INSERT INTO stock_movements (company_id, product_id, kind, from_location_id, to_location_id, quantity, batch_id, actor_kind, actor_id, reason)
     SELECT $1, $2, 'ADD', l.id, $3, $4::numeric, $5, 'user', $6, 'seeded near the limit'
       FROM locations l WHERE l.company_id = $1 AND l.system_role = 'INBOUND'`,
    [company.id, productId, locationId, quantity, batchId, company.admin.id],
  );
  await query(
    `INSERT INTO stock_balances (company_id, product_id, location_id, batch_id, quantity) VALUES ($1, $2, $3, $4, $5::numeric)
     ON CONFLICT ON CONSTRAINT stock_balances_key DO UPDATE SET quantity = stock_balances.quantity + EXCLUDED.quantity`,
    [company.id, productId, locationId, batchId, quantity],
  );
}

/** Every balance of the company, exactly (text), and its ledger length: what a refused booking must leave alone. */
async function stockState(company: TestCompany) {
  const balances = await query<{ product_id: string; location_id: string; batch_id: string | null; quantity: string }>(
    'SELECT product_id, location_id, batch_id, quantity::text AS quantity FROM stock_balances WHERE company_id = $1 ORDER BY product_id, location_id, batch_id',
    [company.id],
  );
  return {
    balances,
    movements: await movementCount(company.id),
    items: await count('SELECT count(*) FROM physical_items WHERE company_id = $1', [company.id]),
    batches: await count('SELECT count(*) FROM batches WHERE company_id = $1', [company.id]),
    idempotencyKeys: await count('SELECT count(*) FROM idempotency_keys WHERE company_id = $1', [company.id]),
  };
}

function expectOutOfRange(res: ApiResponse) {
  expectErrorShape(res, 409, 'balance_out_of_range');
  expect(res.body.details).to.have.property('quantity').that.is.a('string').and.not.empty;
}

describe('a booking that would take a balance beyond its range', () => {
  let company: TestCompany;
  let full: { id: string };
  let other: { id: string };
  let product: TestProduct;
  before(async () => {
    company = await buildCompany();
    [full, other] = [await buildLocation(company), await buildLocation(company)];
    product = await buildProduct(company);
    await seedStock(company, product.id, full.id, NEAR_LIMIT);
    await addStock(company, product.id, other.id, 5);
  });

  const cases: Array<{ when: string; path: () => string; body: () => Record<string, unknown>; auth: () => { apiKey?: string; token?: string } }> = [
    {
      when: 'transaction/ adds 1',
      path: () => `/api/v1/widget/${product.id}/transaction/`,
      body: () => ({ operation: 'add', quantity: 1, location_id: full.id }),
      auth: () => ({ apiKey: company.apiKey }),
    },
    {
      when: 'transaction/ adds the per-request maximum (10^12)',
      path: () => `/api/v1/widget/${product.id}/transaction/`,
      body: () => ({ operation: 'add', quantity: 1e12, location_id: full.id }),
      auth: () => ({ apiKey: company.apiKey }),
    },
    {
      when: 'move/ moves 3 in',
      path: () => '/api/v1/widget/move/',
      body: () => ({ product_id: product.id, location_id: full.id, quantity: 3 }),
      auth: () => ({ apiKey: company.apiKey }),
    },
    {
      when: 'transfer/ brings 2 from another location',
      path: () => '/api/v1/widget/transfer/',
      body: () => ({ product_id: product.id, from_location_id: other.id, to_location_id: full.id, quantity: 2 }),
      auth: () => ({ apiKey: company.apiKey }),
    },
    {
      when: 'POST /movements/ adds from Inbound',
      path: () => '/api/v1/movements/',
      body: () => ({ product_id: product.id, from_location_id: '__inbound__', to_location_id: full.id, quantity: 1 }),
      auth: () => ({ token: company.token }),
    },
    {
      when: 'POST /movements/ transfers between physical locations',
      path: () => '/api/v1/movements/',
      body: () => ({ product_id: product.id, from_location_id: other.id, to_location_id: full.id, quantity: 5 }),
      auth: () => ({ token: company.token }),
    },
  ];

  let inbound: string;
  before(async () => {
    inbound = (await row<{ id: string }>("SELECT id FROM locations WHERE company_id = $1 AND system_role = 'INBOUND'", [company.id])).id;
  });

  for (const c of cases) {
    it(`answers 409 balance_out_of_range naming quantity when ${c.when}, and books nothing`, async () => {
      const before = await stockState(company);
      const body = c.body();
      if (body.from_location_id === '__inbound__') body.from_location_id = inbound;
      const res = await post(c.path(), body, { ...c.auth(), headers: { 'idempotency-key': unique('range') } });
      expectOutOfRange(res);
      expect(await stockState(company)).to.deep.equal(before);
    });
  }

  it('books up to the largest balance (99999999999999.999999 with six decimals), and refuses one millionth more', async () => {
    const dimensional = await buildProduct(company, { profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm', decimals: 6 } });
    await seedStock(company, dimensional.id, full.id, '99999999999999.5');
    const add = (quantity: number) =>
      post(`/api/v1/widget/${dimensional.id}/transaction/`, { operation: 'add', quantity, location_id: full.id }, { apiKey: company.apiKey });
    const ok = await add(0.499999);
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body.location_stock_display).to.equal('99999999999999.999999 m');
    const before = await stockState(company);
    expectOutOfRange(await add(0.000001));
    expect(await stockState(company)).to.deep.equal(before);
  });

  it('refuses a BATCH addition to a full batch (by batch_id and by batch code), and creates no batch', async () => {
    const batched = await buildProduct(company, { profile: 'BATCH' });
    const batch = await post('/api/v1/batches/', { product_id: batched.id, code: unique('LOT') }, { token: company.token });
    expect(batch.status).to.equal(201);
    await seedStock(company, batched.id, full.id, NEAR_LIMIT, batch.body.id);
    const before = await stockState(company);
    const byId = await post(
      `/api/v1/widget/${batched.id}/transaction/`,
      { operation: 'add', quantity: 1, location_id: full.id, batch_id: batch.body.id },
      { apiKey: company.apiKey },
    );
    expectOutOfRange(byId);
    const byCode = await post(
      '/api/v1/widget/move/',
      { product_id: batched.id, location_id: full.id, quantity: 7, batch: { code: batch.body.code } },
      { apiKey: company.apiKey },
    );
    expectOutOfRange(byCode);
    expect(await stockState(company)).to.deep.equal(before);
    // Another batch at the same location has room of its own: the bound is per balance.
    const fresh = await post(
      `/api/v1/widget/${batched.id}/transaction/`,
      { operation: 'add', quantity: 1, location_id: full.id, batch: { code: unique('LOT') } },
      { apiKey: company.apiKey },
    );
    expect(fresh.status, JSON.stringify(fresh.body)).to.equal(200);
  });

  it('refuses SERIALIZED additions (serial numbers through the widget, POST /items/) past the bound, and creates no item', async () => {
    const serialized = await buildProduct(company, { profile: 'SERIALIZED' });
    await seedStock(company, serialized.id, full.id, NEAR_LIMIT);
    const before = await stockState(company);
    expectOutOfRange(
      await post(
        `/api/v1/widget/${serialized.id}/transaction/`,
        { operation: 'add', location_id: full.id, serial_numbers: [unique('SN'), unique('SN')] },
        { apiKey: company.apiKey },
      ),
    );
    expectOutOfRange(await post('/api/v1/items/', { product_id: serialized.id, location_id: full.id, serial_number: unique('SN') }, { token: company.token }));
    expect(await stockState(company)).to.deep.equal(before);
  });

  it('still books what fits elsewhere, and subtracts from the full balance', async () => {
    const res = await post(
      `/api/v1/widget/${product.id}/transaction/`,
      { operation: 'subtract', quantity: 1e12, location_id: full.id },
      { apiKey: company.apiKey },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.location_stock_display).to.equal('98999999999999 pcs');
    const again = await post(
      `/api/v1/widget/${product.id}/transaction/`,
      { operation: 'add', quantity: 1e12, location_id: full.id },
      { apiKey: company.apiKey },
    );
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
  });
});

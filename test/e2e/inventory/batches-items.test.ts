/**
 * Batches (`/api/v1/batches/`) and serialized items (`/api/v1/items/`) through the gateway, bearer token.
 * Batches: create, read, update, list with filters, remaining quantity from the ledger's balances, code
 * uniqueness. Items: listed and read after the ledger books a SERIALIZED product (read only here). Company
 * isolation and bad input for both; refused requests change nothing.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { api, get, patch, post } from '../../support/api';
import { BadCase, expectAccessDenied, expectErrorShape, expectMethodNotAllowed, expectNotFound, expectValidationError } from '../../support/assertions';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct, unique } from '../../support/builders';
import { count, row } from '../../support/sql';

const BATCH_KEYS = ['id', 'product_id', 'code', 'expiration_date', 'quantity', 'stock_display', 'created_at'];
const ITEM_KEYS = ['id', 'product_id', 'serial_number', 'location_id', 'is_active', 'retired_at', 'created_at'];

const readBatch = (id: string) =>
  row('SELECT company_id, product_id, code, expiration_date::text AS expiration_date, updated_at FROM batches WHERE id = $1', [id]);

const batchesOf = (company: TestCompany) => count('SELECT count(*) FROM batches WHERE company_id = $1', [company.id]);

const buildBatchProduct = (company: TestCompany, engine: Record<string, unknown> = {}) =>
  buildProduct(company, { profile: 'BATCH', engine_config: { engine_type: 'batch', ...engine } });

async function createBatch(company: TestCompany, productId: string, body: Record<string, unknown> = {}) {
  const res = await post('/api/v1/batches/', { product_id: productId, code: unique('LOT'), ...body }, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

const listed = async (company: TestCompany, query = '') => {
  const res = await get(`/api/v1/batches/?page_size=500${query}`, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.results as Array<Record<string, any>>;
};

describe('/api/v1/batches/: create, read, update, list', () => {
  it('creates a batch of a BATCH product with no stock, and answers 201 with the batch', async () => {
    const company = await buildCompany();
    const product = await buildBatchProduct(company);
    const res = await post('/api/v1/batches/', { product_id: product.id, code: 'LOT-1', expiration_date: '2031-06-30' }, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.have.all.keys(...BATCH_KEYS);
    expect(res.body).to.include({ product_id: product.id, code: 'LOT-1', expiration_date: '2031-06-30', quantity: 0, stock_display: '0 pcs' });
    expect(await readBatch(res.body.id)).to.include({ company_id: company.id, product_id: product.id, code: 'LOT-1', expiration_date: '2031-06-30' });
    const read = await get(`/api/v1/batches/${res.body.id}/`, { token: company.token });
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.equal(res.body);
  });

  it('creates a batch without an expiration date', async () => {
    const company = await buildCompany();
    const product = await buildBatchProduct(company);
    expect((await createBatch(company, product.id)).expiration_date).to.equal(null);
  });

  it('updates the code and the expiration date with PATCH (null clears the date)', async () => {
    const company = await buildCompany();
    const product = await buildBatchProduct(company);
    const batch = await createBatch(company, product.id, { expiration_date: '2030-01-01' });
    const res = await patch(`/api/v1/batches/${batch.id}/`, { code: 'LOT-RENAMED', expiration_date: '2030-12-31' }, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ ...batch, code: 'LOT-RENAMED', expiration_date: '2030-12-31' });
    const cleared = await patch(`/api/v1/batches/${batch.id}/`, { expiration_date: null }, { token: company.token });
    expect(cleared.body.expiration_date).to.equal(null);
    expect((await readBatch(batch.id)).expiration_date).to.equal(null);
  });

  it('lists batches by expiration date (none last), then by code, paginated', async () => {
    const company = await buildCompany();
    const product = await buildBatchProduct(company);
    const late = await createBatch(company, product.id, { code: 'A-LATE', expiration_date: '2032-01-01' });
    const undated = await createBatch(company, product.id, { code: 'A-UNDATED' });
    const early = await createBatch(company, product.id, { code: 'Z-EARLY', expiration_date: '2030-01-01' });
    const sameDayB = await createBatch(company, product.id, { code: 'B-SAME', expiration_date: '2031-01-01' });
    const sameDayA = await createBatch(company, product.id, { code: 'A-SAME', expiration_date: '2031-01-01' });
    const order = [early, sameDayA, sameDayB, late, undated].map((b) => b.id);
    expect((await listed(company)).map((b) => b.id)).to.deep.equal(order);

    const page = await get('/api/v1/batches/?page=2&page_size=2', { token: company.token });
    expect(page.body.count).to.equal(5);
    expect(page.body.results.map((b: { id: string }) => b.id)).to.deep.equal(order.slice(2, 4));
    expect(page.body.next).to.include('page=3');
    expect(page.body.previous).to.include('page=1');
    expect(page.body.results[0]).to.have.all.keys(...BATCH_KEYS);
  });

  it('filters by product_id and by expires_before (strictly before; undated batches left out)', async () => {
    const company = await buildCompany();
    const milk = await buildBatchProduct(company);
    const cheese = await buildBatchProduct(company);
    const m1 = await createBatch(company, milk.id, { expiration_date: '2030-01-10' });
    const m2 = await createBatch(company, milk.id, { expiration_date: '2030-02-10' });
    await createBatch(company, milk.id);
    const c1 = await createBatch(company, cheese.id, { expiration_date: '2030-01-05' });
    expect((await listed(company, `&product_id=${cheese.id}`)).map((b) => b.id)).to.deep.equal([c1.id]);
    expect((await listed(company, '&expires_before=2030-02-10')).map((b) => b.id)).to.deep.equal([c1.id, m1.id]);
    expect((await listed(company, `&expires_before=2030-02-11&product_id=${milk.id}`)).map((b) => b.id)).to.deep.equal([m1.id, m2.id]);
  });

  it('answers 400 naming product_id when the product is not a BATCH product, and creates nothing', async () => {
    const company = await buildCompany();
    for (const profile of ['STANDARD', 'SERIALIZED'] as const) {
      const product = await buildProduct(company, { profile });
      expectValidationError(await post('/api/v1/batches/', { product_id: product.id, code: unique('LOT') }, { token: company.token }), 'product_id');
    }
    expect(await batchesOf(company)).to.equal(0);
  });

  it('answers 409 already_exists naming code for a code the company already uses (any product), and creates nothing', async () => {
    const company = await buildCompany();
    const milk = await buildBatchProduct(company);
    const cheese = await buildBatchProduct(company);
    await createBatch(company, milk.id, { code: 'LOT-1' });
    for (const productId of [milk.id, cheese.id]) {
      const res = await post('/api/v1/batches/', { product_id: productId, code: 'LOT-1' }, { token: company.token });
      expectErrorShape(res, 409, 'already_exists');
      expect(res.body.details).to.have.all.keys('code');
    }
    expect(await batchesOf(company)).to.equal(1);
  });

  it('answers 409 already_exists naming code when a PATCH takes a used code, and leaves the batch unchanged', async () => {
    const company = await buildCompany();
    const product = await buildBatchProduct(company);
    await createBatch(company, product.id, { code: 'LOT-1' });
    const second = await createBatch(company, product.id, { code: 'LOT-2' });
    const before = await readBatch(second.id);
    const res = await patch(`/api/v1/batches/${second.id}/`, { code: 'LOT-1', expiration_date: '2030-01-01' }, { token: company.token });
    expectErrorShape(res, 409, 'already_exists');
    expect(res.body.details).to.have.all.keys('code');
    expect(await readBatch(second.id)).to.deep.equal(before);
  });

  it('lets two companies use the same batch code', async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    await createBatch(a, (await buildBatchProduct(a)).id, { code: 'LOT-SHARED' });
    expect((await createBatch(b, (await buildBatchProduct(b)).id, { code: 'LOT-SHARED' })).code).to.equal('LOT-SHARED');
  });

  it('answers 405 method_not_allowed (Allow without DELETE) to DELETE: batches are never deleted (the ledger names them)', async () => {
    const company = await buildCompany();
    const batch = await createBatch(company, (await buildBatchProduct(company)).id);
    expectMethodNotAllowed(await api('DELETE', `/api/v1/batches/${batch.id}/`, { token: company.token }));
    expect(await batchesOf(company)).to.equal(1);
  });
});

describe('/api/v1/batches/: remaining quantity from the ledger', () => {
  it('shows the stock booked into a batch, summed over locations, with stock_display in the product unit', async () => {
    const company = await buildCompany();
    const product = await buildBatchProduct(company, { unit: 'kg', decimals: 2 });
    const north = await buildLocation(company);
    const south = await buildLocation(company);
    const batch = await createBatch(company, product.id, { code: 'LOT-KG', expiration_date: '2030-05-01' });
    await addStock(company, product.id, north.id, 2.5, { batch_id: batch.id });
    await addStock(company, product.id, south.id, 1.25, { batch_id: batch.id });
    const read = await get(`/api/v1/batches/${batch.id}/`, { token: company.token });
    expect(read.body).to.include({ quantity: 3.75, stock_display: '3.75 kg' });
    const [row] = await listed(company);
    expect(row).to.include({ id: batch.id, quantity: 3.75, stock_display: '3.75 kg' });
  });

  it('lists a batch created by a booking (batch: {code, expiration_date}) with its quantity, and lowers it after a subtraction', async () => {
    const company = await buildCompany();
    const product = await buildBatchProduct(company);
    const location = await buildLocation(company);
    await addStock(company, product.id, location.id, 10, { batch: { code: 'LOT-BOOKED', expiration_date: '2030-03-03' } });
    let [batch] = await listed(company, `&product_id=${product.id}`);
    expect(batch).to.include({ code: 'LOT-BOOKED', expiration_date: '2030-03-03', quantity: 10, stock_display: '10 pcs' });
    await addStock(company, product.id, location.id, 4, { operation: 'subtract', batch_id: batch.id });
    [batch] = await listed(company, `&product_id=${product.id}`);
    expect(batch).to.include({ quantity: 6, stock_display: '6 pcs' });
  });

  it('filters with has_stock=true and has_stock=false, and computes every quantity of a 60-batch page correctly', async () => {
    const company = await buildCompany();
    const product = await buildBatchProduct(company);
    const location = await buildLocation(company);
    const stocked: Record<string, number> = {};
    const empty: string[] = [];
    for (let i = 0; i < 60; i++) {
      const batch = await createBatch(company, product.id, { code: `LOT-${String(i).padStart(2, '0')}` });
      if (i % 3 === 0) empty.push(batch.id);
      else {
        await addStock(company, product.id, location.id, i, { batch_id: batch.id });
        stocked[batch.id] = i;
      }
    }
    const emptied = Object.keys(stocked)[0];
    await addStock(company, product.id, location.id, stocked[emptied], { operation: 'subtract', batch_id: emptied });
    delete stocked[emptied];

    const withStock = await listed(company, '&has_stock=true');
    expect(Object.fromEntries(withStock.map((b) => [b.id, b.quantity]))).to.deep.equal(stocked);
    const without = await listed(company, '&has_stock=false');
    expect(without.map((b) => b.id)).to.have.members([...empty, emptied]);
    expect(without.every((b) => b.quantity === 0)).to.equal(true);
    expect((await listed(company)).length).to.equal(60);
  });
});

describe('/api/v1/items/: serialized items booked by the ledger', () => {
  async function serializedStock() {
    const company = await buildCompany();
    const product = await buildProduct(company, { profile: 'SERIALIZED' });
    const north = await buildLocation(company);
    const south = await buildLocation(company);
    await addStock(company, product.id, north.id, 2, { serial_numbers: ['SN-A', 'SN-B'] });
    await addStock(company, product.id, south.id, 1, { serial_numbers: ['SN-C'] });
    return { company, product, north, south };
  }

  it('lists the active items after an addition, with their serial numbers and locations', async () => {
    const { company, product, north, south } = await serializedStock();
    const res = await get(`/api/v1/items/?product_id=${product.id}`, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.count).to.equal(3);
    expect(res.body.results[0]).to.have.all.keys(...ITEM_KEYS);
    const bySerial = Object.fromEntries(res.body.results.map((i: any) => [i.serial_number, i]));
    expect(Object.keys(bySerial)).to.have.members(['SN-A', 'SN-B', 'SN-C']);
    expect(bySerial['SN-A']).to.include({ product_id: product.id, location_id: north.id, is_active: true, retired_at: null });
    expect(bySerial['SN-C']).to.include({ location_id: south.id });
    const one = await get(`/api/v1/items/${bySerial['SN-C'].id}/`, { token: company.token });
    expect(one.status).to.equal(200);
    expect(one.body).to.deep.equal(bySerial['SN-C']);
  });

  it('filters by location_id, and shows retired items only with is_active=false', async () => {
    const { company, product, north } = await serializedStock();
    const atNorth = await get(`/api/v1/items/?location_id=${north.id}`, { token: company.token });
    expect(atNorth.body.results.map((i: any) => i.serial_number).sort()).to.deep.equal(['SN-A', 'SN-B']);
    const snA = atNorth.body.results.find((i: any) => i.serial_number === 'SN-A');
    await addStock(company, product.id, north.id, 1, { operation: 'subtract', item_ids: [snA.id] });

    const active = await get(`/api/v1/items/?product_id=${product.id}`, { token: company.token });
    expect(active.body.results.map((i: any) => i.serial_number).sort()).to.deep.equal(['SN-B', 'SN-C']);
    const retired = await get(`/api/v1/items/?product_id=${product.id}&is_active=false`, { token: company.token });
    expect(retired.body.count).to.equal(1);
    expect(retired.body.results[0]).to.include({ id: snA.id, is_active: false });
    expect(new Date(retired.body.results[0].retired_at).getTime()).to.be.closeTo(Date.now(), 60_000);
  });

  it('creates an item by booking one unit in through the ledger (201 with its movement), and refuses a duplicate serial', async () => {
    const { company, product, north: location } = await serializedStock();
    const stockBefore = (await get(`/api/v1/widget/${product.id}/`, { apiKey: company.apiKey })).body.total_quantity;
    const serial = unique('SN-NEW');
    const created = await post(
      '/api/v1/items/',
      { product_id: product.id, location_id: location.id, serial_number: serial, reason: 'found in stock-take' },
      { token: company.token },
    );
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ product_id: product.id, location_id: location.id, serial_number: serial, is_active: true });
    expect(created.body.movement).to.include({ kind: 'ADD', quantity: 1, to_location_id: location.id, reason: 'found in stock-take' });
    expect(created.body.movement.item_ids).to.deep.equal([created.body.id]);
    expect((await get(`/api/v1/widget/${product.id}/`, { apiKey: company.apiKey })).body.total_quantity).to.equal(stockBefore + 1);
    expectErrorShape(
      await post('/api/v1/items/', { product_id: product.id, location_id: location.id, serial_number: serial }, { token: company.token }),
      409,
      'already_exists',
    );
    expectValidationError(await post('/api/v1/items/', { product_id: product.id, serial_number: unique('SN') }, { token: company.token }), 'location_id');
    const standard = await buildProduct(company);
    expectValidationError(
      await post('/api/v1/items/', { product_id: standard.id, location_id: location.id, serial_number: unique('SN') }, { token: company.token }),
      'product_id',
    );
  });

  it('corrects a serial number with PATCH and refuses other changes (those are bookings) and DELETE', async () => {
    const { company, product } = await serializedStock();
    const [item, other] = (await get(`/api/v1/items/?product_id=${product.id}`, { token: company.token })).body.results;
    const renamed = await patch(`/api/v1/items/${item.id}/`, { serial_number: 'SN-CORRECTED-' + item.id }, { token: company.token });
    expect(renamed.status).to.equal(200);
    expect(renamed.body.serial_number).to.equal('SN-CORRECTED-' + item.id);
    expectErrorShape(await patch(`/api/v1/items/${item.id}/`, { serial_number: other.serial_number }, { token: company.token }), 409, 'already_exists');
    expectValidationError(await patch(`/api/v1/items/${item.id}/`, { is_active: false }, { token: company.token }), 'is_active');
    expectValidationError(await patch(`/api/v1/items/${item.id}/`, { location_id: randomUUID() }, { token: company.token }), 'location_id');
    const before = await count('SELECT count(*) FROM physical_items WHERE company_id = $1 AND is_active', [company.id]);
    expectMethodNotAllowed(await api('DELETE', `/api/v1/items/${item.id}/`, { token: company.token }));
    expect(await count('SELECT count(*) FROM physical_items WHERE company_id = $1 AND is_active', [company.id])).to.equal(before);
  });

  it('creates one item and answers 409 to the rest when 10 requests race for one serial number', async () => {
    const { company, product, north: location } = await serializedStock();
    const serial = unique('SN-RACE');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        post('/api/v1/items/', { product_id: product.id, location_id: location.id, serial_number: serial }, { token: company.token }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).to.have.length(1);
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.code)).to.deep.equal(Array(9).fill('already_exists'));
    expect(await count('SELECT count(*) FROM physical_items WHERE company_id = $1 AND serial_number = $2', [company.id, serial])).to.equal(1);
    expect(
      await count('SELECT count(*) FROM stock_movements WHERE company_id = $1 AND $2 = ANY(item_ids)', [
        company.id,
        answers.find((a) => a.status === 201)!.body.id,
      ]),
    ).to.equal(1);
  });

  it('creates one batch and answers 409 to the rest when 10 requests race for one batch code', async () => {
    const company = await buildCompany();
    const product = await buildBatchProduct(company);
    const code = unique('LOT-RACE');
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('/api/v1/batches/', { product_id: product.id, code }, { token: company.token })));
    expect(answers.filter((a) => a.status === 201)).to.have.length(1);
    expect(answers.filter((a) => a.status === 409)).to.have.length(9);
    expect(await count('SELECT count(*) FROM batches WHERE company_id = $1 AND code = $2', [company.id, code])).to.equal(1);
  });
});

describe('/api/v1/batches/ and /api/v1/items/: company isolation', () => {
  it("answers 403 access_denied to B reading or updating A's batch, and changes nothing", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const batch = await createBatch(a, (await buildBatchProduct(a)).id, { code: unique('A_LOT') });
    const before = await readBatch(batch.id);
    expectAccessDenied(await get(`/api/v1/batches/${batch.id}/`, { token: b.token }), [batch.code, a.id]);
    expectAccessDenied(await patch(`/api/v1/batches/${batch.id}/`, { code: 'B-LOT', expiration_date: null }, { token: b.token }), [batch.code, a.id]);
    expect(await readBatch(batch.id)).to.deep.equal(before);
  });

  it("answers 403 access_denied to B creating a batch of A's product or filtering by it, and creates nothing", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const product = await buildBatchProduct(a);
    expectAccessDenied(await post('/api/v1/batches/', { product_id: product.id, code: 'B-LOT' }, { token: b.token }), [product.sku, a.id]);
    expectAccessDenied(await get(`/api/v1/batches/?product_id=${product.id}`, { token: b.token }), [product.sku]);
    expect(await batchesOf(b)).to.equal(0);
    expect(await batchesOf(a)).to.equal(0);
  });

  it("lists none of A's batches or items to B", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    await createBatch(a, (await buildBatchProduct(a)).id, { code: unique('A_LOT') });
    const serial = await buildProduct(a, { profile: 'SERIALIZED' });
    await addStock(a, serial.id, (await buildLocation(a)).id, 1, { serial_numbers: [unique('A_SN')] });
    const bBatch = await createBatch(b, (await buildBatchProduct(b)).id);
    expect((await listed(b)).map((x) => x.id)).to.deep.equal([bBatch.id]);
    const items = await get('/api/v1/items/?page_size=500', { token: b.token });
    expect(items.body).to.include({ count: 0 });
    const retired = await get('/api/v1/items/?is_active=false', { token: b.token });
    expect(retired.body).to.include({ count: 0 });
  });

  it("answers 403 access_denied to B reading A's item or filtering items by A's product or location", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const product = await buildProduct(a, { profile: 'SERIALIZED' });
    const location = await buildLocation(a);
    const serial = unique('A_SN');
    await addStock(a, product.id, location.id, 1, { serial_numbers: [serial] });
    const [item] = (await get(`/api/v1/items/?product_id=${product.id}`, { token: a.token })).body.results;
    expectAccessDenied(await get(`/api/v1/items/${item.id}/`, { token: b.token }), [serial, a.id]);
    expectAccessDenied(await get(`/api/v1/items/?product_id=${product.id}`, { token: b.token }), [serial]);
    expectAccessDenied(await get(`/api/v1/items/?location_id=${location.id}`, { token: b.token }), [serial, location.name]);
  });

  it('answers 404 not_found for batch, item, product and location ids that exist nowhere', async () => {
    const b = await buildCompany();
    const nowhere = randomUUID();
    expectNotFound(await get(`/api/v1/batches/${nowhere}/`, { token: b.token }));
    expectNotFound(await patch(`/api/v1/batches/${nowhere}/`, { code: 'x' }, { token: b.token }));
    expectNotFound(await post('/api/v1/batches/', { product_id: nowhere, code: 'x' }, { token: b.token }));
    expectNotFound(await get(`/api/v1/batches/?product_id=${nowhere}`, { token: b.token }));
    expectNotFound(await get(`/api/v1/items/${nowhere}/`, { token: b.token }));
    expectNotFound(await get(`/api/v1/items/?product_id=${nowhere}`, { token: b.token }));
    expectNotFound(await get(`/api/v1/items/?location_id=${nowhere}`, { token: b.token }));
    expect(await batchesOf(b)).to.equal(0);
  });
});

describe('POST and PATCH /api/v1/batches/ with bad input', () => {
  const createCases = (productId: string): BadCase[] => [
    { when: 'product_id is missing', body: { code: 'LOT' }, fields: ['product_id'] },
    { when: 'code is missing', body: { product_id: productId }, fields: ['code'] },
    { when: 'the body is empty', body: {}, fields: ['product_id', 'code'] },
    { when: 'product_id is not a UUID', body: { product_id: 'abc', code: 'LOT' }, fields: ['product_id'] },
    { when: 'code is 101 characters long', body: { product_id: productId, code: 'x'.repeat(101) }, fields: ['code'] },
    { when: 'code is only blanks', body: { product_id: productId, code: '  ' }, fields: ['code'] },
    { when: 'expiration_date is not a date', body: { product_id: productId, code: 'LOT', expiration_date: 'soon' }, fields: ['expiration_date'] },
    { when: 'expiration_date is April 31st', body: { product_id: productId, code: 'LOT', expiration_date: '2030-04-31' }, fields: ['expiration_date'] },
    { when: 'quantity is sent (stock is booked, not set)', body: { product_id: productId, code: 'LOT', quantity: 5 }, fields: ['quantity'] },
  ];

  it('answers 400 naming each bad field of a create, and creates no batch', async () => {
    const company = await buildCompany();
    const product = await buildBatchProduct(company);
    for (const c of createCases(product.id)) {
      expectValidationError(await post('/api/v1/batches/', c.body, { token: company.token }), ...c.fields);
    }
    expect(await batchesOf(company)).to.equal(0);
  });

  it('answers 400 naming each bad field of an update, and leaves the batch unchanged', async () => {
    const company = await buildCompany();
    const batch = await createBatch(company, (await buildBatchProduct(company)).id);
    const before = await readBatch(batch.id);
    const cases: BadCase[] = [
      { when: 'the body is empty', body: {}, fields: ['body'] },
      { when: 'code is empty', body: { code: '' }, fields: ['code'] },
      { when: 'expiration_date is malformed', body: { expiration_date: '2030/01/01' }, fields: ['expiration_date'] },
      { when: 'product_id is sent', body: { product_id: randomUUID() }, fields: ['product_id'] },
    ];
    for (const c of cases) expectValidationError(await patch(`/api/v1/batches/${batch.id}/`, c.body, { token: company.token }), ...c.fields);
    expectValidationError(await patch('/api/v1/batches/nope/', { code: 'x' }, { token: company.token }), 'id');
    expect(await readBatch(batch.id)).to.deep.equal(before);
  });

  it('answers 400 naming each bad list parameter of batches and items', async () => {
    const company = await buildCompany();
    expectValidationError(await get('/api/v1/batches/?has_stock=maybe', { token: company.token }), 'has_stock');
    expectValidationError(await get('/api/v1/batches/?expires_before=2030-02-30', { token: company.token }), 'expires_before');
    expectValidationError(await get('/api/v1/batches/?product_id=123', { token: company.token }), 'product_id');
    expectValidationError(await get('/api/v1/batches/?code=LOT', { token: company.token }), 'code');
    expectValidationError(await get('/api/v1/batches/x/', { token: company.token }), 'id');
    expectValidationError(await get('/api/v1/items/?is_active=sometimes', { token: company.token }), 'is_active');
    expectValidationError(await get('/api/v1/items/?product_id=1&location_id=2', { token: company.token }), 'product_id', 'location_id');
    expectValidationError(await get('/api/v1/items/?serial_number=SN', { token: company.token }), 'serial_number');
    expectValidationError(await get('/api/v1/items/not-a-uuid/', { token: company.token }), 'id');
  });
});

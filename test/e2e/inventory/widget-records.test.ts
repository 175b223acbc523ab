/**
 * The widget's record lists with an API key: `items/`, `batches/`, `location_inventory/` and `work_orders/`.
 * Each: its success shape, 400 for missing or malformed parameters, 401 without a key, 403 for another
 * company's ids and for a key without `read`, 404 for unknown ids; VIRTUAL locations never appear.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, patch, post } from '../../support/api';
import { expectAccessDenied, expectErrorShape, expectNotFound, expectValidationError } from '../../support/assertions';
import { buildStock, TestCompany, addStock, buildApiKey, buildCompany, buildLocation, buildProduct, unique } from '../../support/builders';
import { query } from '../../support/sql';

const systemLocations = (company: TestCompany) =>
  query<{ id: string; name: string }>("SELECT id, name FROM locations WHERE company_id = $1 AND type = 'VIRTUAL'", [company.id]);

const widget = (path: string, company: TestCompany | { apiKey: string }) => get(`/api/v1/widget/${path}`, { apiKey: company.apiKey });

async function writeOnlyKey(company: TestCompany) {
  return (await buildApiKey(company, { permissions: ['write'] })).key;
}

describe('GET /api/v1/widget/items/', () => {
  async function world() {
    const company = await buildCompany();
    const product = await buildProduct(company, { profile: 'SERIALIZED' });
    const north = await buildLocation(company, unique('North'));
    const south = await buildLocation(company, unique('South'));
    await addStock(company, product.id, north.id, 2, { serial_numbers: ['SN-2', 'SN-1'] });
    await addStock(company, product.id, south.id, 1, { serial_numbers: ['SN-3'] });
    return { company, product, north, south };
  }

  it('lists the active items of a product with their location id and name, by serial number', async () => {
    const { company, product, north, south } = await world();
    const res = await widget(`items/?product_id=${product.id}`, company);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.have.all.keys('items');
    expect(res.body.items.map((i: any) => [i.serial_number, i.location_id, i.location_name])).to.deep.equal([
      ['SN-1', north.id, north.name],
      ['SN-2', north.id, north.name],
      ['SN-3', south.id, south.name],
    ]);
    for (const item of res.body.items) expect(item).to.have.all.keys('id', 'serial_number', 'location_id', 'location_name');
  });

  it('filters by location_id, and leaves retired items out', async () => {
    const { company, product, north } = await world();
    const atNorth = await widget(`items/?product_id=${product.id}&location_id=${north.id}`, company);
    expect(atNorth.body.items.map((i: any) => i.serial_number)).to.deep.equal(['SN-1', 'SN-2']);
    await addStock(company, product.id, north.id, 1, { operation: 'subtract', item_ids: [atNorth.body.items[0].id] });
    const after = await widget(`items/?product_id=${product.id}`, company);
    expect(after.body.items.map((i: any) => i.serial_number)).to.deep.equal(['SN-2', 'SN-3']);
  });

  it('answers an empty list for a product without items', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const res = await widget(`items/?product_id=${product.id}`, company);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ items: [] });
  });

  it('answers 400 naming product_id when it is missing or malformed, and location_id when malformed or unknown parameters', async () => {
    const { company, product } = await world();
    expectValidationError(await widget('items/', company), 'product_id');
    expectValidationError(await widget('items/?product_id=nope', company), 'product_id');
    expectValidationError(await widget(`items/?product_id=${product.id}&location_id=12`, company), 'location_id');
    expectValidationError(await widget(`items/?product_id=${product.id}&serial_number=SN-1`, company), 'serial_number');
  });

  it("answers 403 access_denied for another company's product or location, with nothing of them in the answer", async () => {
    const { company: a, product, north } = await world();
    const b = await buildCompany();
    const bProduct = await buildProduct(b, { profile: 'SERIALIZED' });
    expectAccessDenied(await widget(`items/?product_id=${product.id}`, b), ['SN-1', north.name, a.id]);
    expectAccessDenied(await widget(`items/?product_id=${bProduct.id}&location_id=${north.id}`, b), [north.name]);
  });

  it('answers 404 for an unknown product or location, and for a VIRTUAL location', async () => {
    const { company, product } = await world();
    expectNotFound(await widget(`items/?product_id=${randomUUID()}`, company));
    expectNotFound(await widget(`items/?product_id=${product.id}&location_id=${randomUUID()}`, company));
    for (const virtual of await systemLocations(company)) {
      expectNotFound(await widget(`items/?product_id=${product.id}&location_id=${virtual.id}`, company));
    }
  });

  it('answers 401 without a key and 403 permission_denied to a key without read', async () => {
    const { company, product } = await world();
    expectErrorShape(await get(`/api/v1/widget/items/?product_id=${product.id}`), 401, 'authentication_failed');
    expectErrorShape(await widget(`items/?product_id=${product.id}`, { apiKey: await writeOnlyKey(company) }), 403, 'permission_denied');
  });
});

describe('GET /api/v1/widget/batches/', () => {
  it('lists only the batches with stock left, earliest expiry first (none last), with quantity and stock_display', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { profile: 'BATCH', engine_config: { engine_type: 'batch', unit: 'l', decimals: 1 } });
    const north = await buildLocation(company);
    const south = await buildLocation(company);
    await addStock(company, product.id, north.id, 2, { batch: { code: 'LATE', expiration_date: '2032-01-01' } });
    await addStock(company, product.id, north.id, 1.5, { batch: { code: 'EARLY', expiration_date: '2030-01-01' } });
    await addStock(company, product.id, south.id, 1, { batch: { code: 'EARLY' } });
    await addStock(company, product.id, south.id, 4, { batch: { code: 'UNDATED' } });
    await addStock(company, product.id, north.id, 3, { batch: { code: 'GONE', expiration_date: '2029-01-01' } });
    const empty = await post('/api/v1/batches/', { product_id: product.id, code: 'EMPTY', expiration_date: '2028-01-01' }, { token: company.token });
    expect(empty.status).to.equal(201);
    const all = await get(`/api/v1/batches/?product_id=${product.id}`, { token: company.token });
    const gone = all.body.results.find((b: { code: string }) => b.code === 'GONE');
    await addStock(company, product.id, north.id, 3, { operation: 'subtract', batch_id: gone.id });

    const res = await widget(`batches/?product_id=${product.id}`, company);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.have.all.keys('batches');
    expect(res.body.batches.map((b: any) => [b.code, b.expiration_date, b.quantity, b.stock_display])).to.deep.equal([
      ['EARLY', '2030-01-01', 2.5, '2.5 l'],
      ['LATE', '2032-01-01', 2, '2.0 l'],
      ['UNDATED', null, 4, '4.0 l'],
    ]);
    for (const batch of res.body.batches) expect(batch).to.have.all.keys('id', 'code', 'expiration_date', 'quantity', 'stock_display');
  });

  it("with location_id lists the batches with stock at that location, with their quantity there (the booking form's picker)", async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { profile: 'BATCH' });
    const north = await buildLocation(company);
    const south = await buildLocation(company);
    await addStock(company, product.id, north.id, 2, { batch: { code: 'NORTH-ONLY', expiration_date: '2030-01-01' } });
    await addStock(company, product.id, north.id, 5, { batch: { code: 'BOTH', expiration_date: '2031-01-01' } });
    await addStock(company, product.id, south.id, 3, { batch: { code: 'BOTH' } });
    const rows = async (locationId: string) =>
      (await widget(`batches/?product_id=${product.id}&location_id=${locationId}`, company)).body.batches.map((b: any) => [
        b.code,
        b.quantity,
        b.stock_display,
      ]);
    expect(await rows(south.id)).to.deep.equal([['BOTH', 3, '3 pcs']]);
    expect(await rows(north.id)).to.deep.equal([
      ['NORTH-ONLY', 2, '2 pcs'],
      ['BOTH', 5, '5 pcs'],
    ]);
    // A batch emptied at a location leaves that location's list only.
    const both = (await widget(`batches/?product_id=${product.id}`, company)).body.batches.find((b: { code: string }) => b.code === 'BOTH');
    expect(both.quantity).to.equal(8);
    await addStock(company, product.id, south.id, 3, { operation: 'subtract', batch_id: both.id });
    expect(await rows(south.id)).to.deep.equal([]);
    expect((await widget(`batches/?product_id=${product.id}`, company)).body.batches.map((b: any) => [b.code, b.quantity])).to.deep.equal([
      ['NORTH-ONLY', 2],
      ['BOTH', 5],
    ]);
  });

  it("answers 404 for a VIRTUAL location_id, 403 for another company's, 400 for a malformed one", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const product = await buildProduct(a, { profile: 'BATCH' });
    const [inbound] = await systemLocations(a);
    expectNotFound(await widget(`batches/?product_id=${product.id}&location_id=${inbound.id}`, a));
    expectAccessDenied(await widget(`batches/?product_id=${product.id}&location_id=${(await buildLocation(b)).id}`, a));
    expectValidationError(await widget(`batches/?product_id=${product.id}&location_id=nowhere`, a), 'location_id');
  });

  it('answers an empty list for a product without batches', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    expect((await widget(`batches/?product_id=${product.id}`, company)).body).to.deep.equal({ batches: [] });
  });

  it('answers 400 naming product_id when it is missing or malformed', async () => {
    const company = await buildCompany();
    expectValidationError(await widget('batches/', company), 'product_id');
    expectValidationError(await widget('batches/?product_id=1', company), 'product_id');
    expectValidationError(await widget(`batches/?product_id=${randomUUID()}&has_stock=true`, company), 'has_stock');
  });

  it("answers 403 access_denied for another company's product and 404 for an unknown one", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const product = await buildProduct(a, { profile: 'BATCH' });
    await addStock(a, product.id, (await buildLocation(a)).id, 5, { batch: { code: 'A-SECRET-LOT' } });
    expectAccessDenied(await widget(`batches/?product_id=${product.id}`, b), ['A-SECRET-LOT', product.sku]);
    expectNotFound(await widget(`batches/?product_id=${randomUUID()}`, b));
  });

  it('answers 401 without a key and 403 permission_denied to a key without read', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { profile: 'BATCH' });
    expectErrorShape(await get(`/api/v1/widget/batches/?product_id=${product.id}`), 401, 'authentication_failed');
    expectErrorShape(await widget(`batches/?product_id=${product.id}`, { apiKey: await writeOnlyKey(company) }), 403, 'permission_denied');
  });
});

describe('GET /api/v1/widget/location_inventory/', () => {
  it('answers the location and the products with stock there, by name, batches summed, items counted', async () => {
    const company = await buildCompany();
    const location = await buildLocation(company, unique('Depot'));
    const elsewhere = await buildLocation(company);
    const bolts = await buildProduct(company, { name: 'Bolts' });
    const cable = await buildProduct(company, { name: 'Cable', profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm', decimals: 2 } });
    const milk = await buildProduct(company, { name: 'Milk', profile: 'BATCH' });
    const phones = await buildProduct(company, { name: 'Phones', profile: 'SERIALIZED' });
    const gone = await buildProduct(company, { name: 'Gone' });
    const absent = await buildProduct(company, { name: 'Absent' });
    await addStock(company, bolts.id, location.id, 12);
    await addStock(company, cable.id, location.id, 3.5);
    await addStock(company, milk.id, location.id, 2, { batch: { code: unique('M1') } });
    await addStock(company, milk.id, location.id, 3, { batch: { code: unique('M2') } });
    await addStock(company, phones.id, location.id, 2);
    await addStock(company, gone.id, location.id, 1);
    await addStock(company, gone.id, location.id, 1, { operation: 'subtract' });
    await addStock(company, absent.id, elsewhere.id, 9);

    const res = await widget(`location_inventory/?location_id=${location.id}`, company);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.have.all.keys('location', 'products');
    expect(res.body.location).to.deep.equal({ id: location.id, name: location.name, type: 'WAREHOUSE' });
    expect(res.body.products).to.deep.equal([
      { id: bolts.id, sku: bolts.sku, name: 'Bolts', quantity: 12, stock_display: '12 pcs' },
      { id: cable.id, sku: cable.sku, name: 'Cable', quantity: 3.5, stock_display: '3.50 m' },
      { id: milk.id, sku: milk.sku, name: 'Milk', quantity: 5, stock_display: '5 pcs' },
      { id: phones.id, sku: phones.sku, name: 'Phones', quantity: 2, stock_display: '2 pcs' },
    ]);
  });

  it('answers an empty product list for a location without stock', async () => {
    const company = await buildCompany();
    const location = await buildLocation(company);
    const res = await widget(`location_inventory/?location_id=${location.id}`, company);
    expect(res.status).to.equal(200);
    expect(res.body.products).to.deep.equal([]);
  });

  it('answers 404 not_found for the VIRTUAL Inbound and Outbound locations, though the ledger books through them', async () => {
    const { company, product, location } = await buildStock({ quantity: 5 });
    await addStock(company, product.id, location.id, 2, { operation: 'subtract' });
    const virtual = await systemLocations(company);
    expect(virtual.map((l) => l.name).sort()).to.deep.equal(['Inbound', 'Outbound']);
    for (const l of virtual) {
      const res = await widget(`location_inventory/?location_id=${l.id}`, company);
      expectNotFound(res);
      expect(JSON.stringify(res.body)).not.to.include(l.name);
    }
  });

  it("answers 403 access_denied for another company's location, with nothing of it, and 404 for an unknown one", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const location = await buildLocation(a, unique('A_Depot'));
    const product = await buildProduct(a, { name: unique('A_Product') });
    await addStock(a, product.id, location.id, 3);
    expectAccessDenied(await widget(`location_inventory/?location_id=${location.id}`, b), [location.name, product.name, product.sku]);
    for (const l of await systemLocations(a)) expectAccessDenied(await widget(`location_inventory/?location_id=${l.id}`, b), [a.id]);
    expectNotFound(await widget(`location_inventory/?location_id=${randomUUID()}`, b));
  });

  it('answers 400 naming location_id when it is missing or malformed', async () => {
    const company = await buildCompany();
    expectValidationError(await widget('location_inventory/', company), 'location_id');
    expectValidationError(await widget('location_inventory/?location_id=warehouse', company), 'location_id');
  });

  it('answers 401 without a key and 403 permission_denied to a key without read', async () => {
    const company = await buildCompany();
    const location = await buildLocation(company);
    expectErrorShape(await get(`/api/v1/widget/location_inventory/?location_id=${location.id}`), 401, 'authentication_failed');
    expectErrorShape(await widget(`location_inventory/?location_id=${location.id}`, { apiKey: await writeOnlyKey(company) }), 403, 'permission_denied');
  });
});

describe('GET /api/v1/widget/work_orders/', () => {
  it('lists the OPEN and IN_PROGRESS work orders, earliest due date first (none last)', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const create = async (body: Record<string, unknown>) => {
      const res = await post('/api/v1/work-orders/', { title: 'Job', ...body }, { token: company.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body;
    };
    const later = await create({ number: 'WO-3', due_date: '2031-01-01' });
    const undated = await create({ number: 'WO-4' });
    const soon = await create({ number: 'WO-2', due_date: '2030-01-01', status: 'IN_PROGRESS', product_id: product.id, quantity: 4 });
    await create({ number: 'WO-5', due_date: '2029-01-01', status: 'DONE' });
    await create({ number: 'WO-6', due_date: '2029-01-01', status: 'CANCELLED' });
    const cancelledLater = await create({ number: 'WO-7', due_date: '2029-06-01' });
    expect((await patch(`/api/v1/work-orders/${cancelledLater.id}/`, { status: 'CANCELLED' }, { token: company.token })).status).to.equal(200);

    const res = await widget('work_orders/', company);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.have.all.keys('work_orders');
    expect(res.body.work_orders.map((w: { id: string }) => w.id)).to.deep.equal([soon.id, later.id, undated.id]);
    expect(res.body.work_orders[0]).to.deep.equal({
      id: soon.id,
      number: 'WO-2',
      title: 'Job',
      status: 'IN_PROGRESS',
      product_id: product.id,
      quantity: 4,
      due_date: '2030-01-01',
    });
  });

  it('answers an empty list for a company without open work orders', async () => {
    const company = await buildCompany();
    expect((await widget('work_orders/', company)).body).to.deep.equal({ work_orders: [] });
  });

  it('answers 400 naming an unknown query parameter', async () => {
    const company = await buildCompany();
    expectValidationError(await widget('work_orders/?status=DONE', company), 'status');
  });

  it('answers 401 without a key and 403 permission_denied to a key without read', async () => {
    const company = await buildCompany();
    expectErrorShape(await get('/api/v1/widget/work_orders/'), 401, 'authentication_failed');
    expectErrorShape(await widget('work_orders/', { apiKey: await writeOnlyKey(company) }), 403, 'permission_denied');
  });
});

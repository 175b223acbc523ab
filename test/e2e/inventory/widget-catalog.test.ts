import { expect } from 'chai';
import { get, patch } from '../../support/api';
import { buildStock, addStock, buildCompany, buildLocation, buildProduct } from '../../support/builders';

describe('GET /api/v1/widget/ (product list)', () => {
  it('answers the company, non-dimensional products and DIMENSIONAL ones as poly_products, with stock_display', async () => {
    const company = await buildCompany();
    const [a, b] = [await buildLocation(company), await buildLocation(company)];
    const bolts = await buildProduct(company, { name: 'A bolts' });
    const cable = await buildProduct(company, { name: 'B cable', profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm' } });
    const phones = await buildProduct(company, { name: 'C phones', profile: 'SERIALIZED' });
    const milk = await buildProduct(company, { name: 'D milk', profile: 'BATCH', engine_config: { engine_type: 'batch', unit: 'l', decimals: 1 } });
    await addStock(company, bolts.id, a.id, 12);
    await addStock(company, bolts.id, b.id, 3);
    await addStock(company, cable.id, a.id, 3.5);
    await addStock(company, phones.id, b.id, 2);
    await addStock(company, milk.id, a.id, 2.5, { batch: { code: `milk-${milk.id}`, expiration_date: '2030-01-01' } });

    const res = await get('/api/v1/widget/', { apiKey: company.apiKey });
    expect(res.status).to.equal(200);
    expect(res.body.company).to.equal(company.name);
    expect(res.body.products).to.deep.equal([
      { id: bolts.id, name: 'A bolts', sku: bolts.sku, stock_display: '15 pcs', engine_type: 'counter', barcode: null },
      { id: phones.id, name: 'C phones', sku: phones.sku, stock_display: '2 pcs', engine_type: 'serialized', barcode: null },
      { id: milk.id, name: 'D milk', sku: milk.sku, stock_display: '2.5 l', engine_type: 'batch', barcode: null },
    ]);
    expect(res.body.poly_products).to.deep.equal([
      { id: cable.id, name: 'B cable', sku: cable.sku, stock_display: '3.50 m', engine_type: 'dimensional', barcode: null, unit: 'm', decimals: 2 },
    ]);

    const atB = await get(`/api/v1/widget/?location_id=${b.id}`, { apiKey: company.apiKey });
    expect(atB.body.products.map((p: { stock_display: string }) => p.stock_display)).to.deep.equal(['3 pcs', '2 pcs', '0.0 l']);
    expect(atB.body.poly_products[0].stock_display).to.equal('0.00 m');
  });

  it('leaves out deactivated products and refuses a VIRTUAL location filter', async () => {
    const company = await buildCompany();
    const gone = await buildProduct(company);
    expect((await patch(`/api/v1/product-models/${gone.id}/`, { is_active: false }, { token: company.token })).status).to.equal(200);
    const res = await get('/api/v1/widget/', { apiKey: company.apiKey });
    expect(res.body.products).to.deep.equal([]);
    const virtual = (await get('/api/v1/locations/?type=VIRTUAL', { token: company.token })).body.results[0].id;
    const filtered = await get(`/api/v1/widget/?location_id=${virtual}`, { apiKey: company.apiKey });
    expect(filtered.status).to.equal(400);
    expect(filtered.body.details).to.have.property('location_id');
  });
});

describe('GET /api/v1/widget/{id}/ (product detail)', () => {
  it('answers the stock breakdown by location (physical only) and the item count of a SERIALIZED product', async () => {
    const company = await buildCompany();
    const [a, b] = [await buildLocation(company, 'Aisle 1'), await buildLocation(company, 'Back room')];
    const phones = await buildProduct(company, { profile: 'SERIALIZED' });
    await addStock(company, phones.id, a.id, 2);
    await addStock(company, phones.id, b.id, 1);
    const res = await get(`/api/v1/widget/${phones.id}/`, { apiKey: company.apiKey });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ id: phones.id, profile: 'SERIALIZED', engine_type: 'serialized', total_quantity: 3, stock_display: '3 pcs', items_count: 3 });
    expect(res.body.locations.map((l: { location_name: string; stock_display: string }) => [l.location_name, l.stock_display])).to.deep.equal([
      ['Aisle 1', '2 pcs'],
      ['Back room', '1 pcs'],
    ]);
  });

  it('answers 404 for an unknown product and 400 for a malformed id', async () => {
    const company = await buildCompany();
    expect((await get('/api/v1/widget/0b6f7a52-3a3e-4b7e-9f39-2f4f3d0f0c11/', { apiKey: company.apiKey })).status).to.equal(404);
    const malformed = await get('/api/v1/widget/not-a-uuid/', { apiKey: company.apiKey });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.details).to.have.property('id');
  });
});

describe('deactivating a location', () => {
  it('is refused with 409 location_has_stock while the location holds stock, and allowed once it is empty', async () => {
    const { company, product, location: shelf } = await buildStock({ quantity: 2 });
    const refused = await patch(`/api/v1/locations/${shelf.id}/`, { is_active: false }, { token: company.token });
    expect(refused.status).to.equal(409);
    expect(refused.body.code).to.equal('location_has_stock');
    expect((await get(`/api/v1/locations/${shelf.id}/`, { token: company.token })).body.is_active).to.equal(true);
    await addStock(company, product.id, shelf.id, 2, { operation: 'subtract' });
    expect((await patch(`/api/v1/locations/${shelf.id}/`, { is_active: false }, { token: company.token })).status).to.equal(200);
  });
});

describe('changing decimals after bookings', () => {
  it('refuses fewer decimals (409 decimals_locked) once stock was booked, and allows more', async () => {
    const company = await buildCompany();
    const cable = await buildProduct(company, { profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm', decimals: 2 } });
    const shelf = await buildLocation(company);
    await addStock(company, cable.id, shelf.id, 3.75);
    const fewer = await patch(
      `/api/v1/product-models/${cable.id}/`,
      { engine_config: { engine_type: 'dimensional', unit: 'm', decimals: 0 } },
      { token: company.token },
    );
    expect(fewer.status).to.equal(409);
    expect(fewer.body.code).to.equal('decimals_locked');
    expect((await get(`/api/v1/widget/${cable.id}/`, { apiKey: company.apiKey })).body.stock_display).to.equal('3.75 m');
    const more = await patch(
      `/api/v1/product-models/${cable.id}/`,
      { engine_config: { engine_type: 'dimensional', unit: 'm', decimals: 3 } },
      { token: company.token },
    );
    expect(more.status).to.equal(200);
    expect((await get(`/api/v1/widget/${cable.id}/`, { apiKey: company.apiKey })).body.stock_display).to.equal('3.750 m');
  });
});

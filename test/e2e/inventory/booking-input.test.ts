import { expect } from 'chai';
import { api, post } from '../../support/api';
import { TestCompany, addStock, buildApiKey, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { balanceOf, movementCount } from '../../support/stock';

/** Every booking endpoint, with a valid body to break one field at a time. */
function endpoints(c: TestCompany, ids: { product: string; dimensional: string; a: string; b: string }) {
  return [
    {
      name: 'transaction/',
      path: `/api/v1/widget/${ids.product}/transaction/`,
      auth: { apiKey: c.apiKey },
      body: { operation: 'subtract', quantity: 1, location_id: ids.a },
    },
    { name: 'move/', path: '/api/v1/widget/move/', auth: { apiKey: c.apiKey }, body: { product_id: ids.product, location_id: ids.a, quantity: -1 } },
    {
      name: 'transfer/',
      path: '/api/v1/widget/transfer/',
      auth: { apiKey: c.apiKey },
      body: { product_id: ids.product, from_location_id: ids.a, to_location_id: ids.b, quantity: 1 },
    },
    {
      name: 'movements/',
      path: '/api/v1/movements/',
      auth: { token: c.token },
      body: { product_id: ids.product, from_location_id: ids.a, to_location_id: ids.b, quantity: 1 },
    },
  ];
}

describe('bad input on every booking endpoint', () => {
  let company: TestCompany;
  let ids: { product: string; dimensional: string; a: string; b: string };
  before(async () => {
    company = await buildCompany();
    const product = await buildProduct(company);
    const dimensional = await buildProduct(company, { profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'kg', decimals: 2 } });
    const [a, b] = [await buildLocation(company), await buildLocation(company)];
    await addStock(company, product.id, a.id, 100);
    ids = { product: product.id, dimensional: dimensional.id, a: a.id, b: b.id };
  });

  const badQuantities: Array<[string, unknown]> = [
    ['zero', 0],
    ['a string', '5'],
    ['"NaN"', 'NaN'],
    ['"1e999"', '1e999'],
    ['a boolean', true],
    ['null', null],
    ['an object', { value: 1 }],
    ['more than 1e12', 1e13],
  ];

  for (const [what, quantity] of badQuantities) {
    it(`answers 400 naming quantity when it is ${what}, and books nothing`, async () => {
      const before = await movementCount(company.id);
      for (const e of endpoints(company, ids)) {
        const res = await post(e.path, { ...e.body, quantity }, e.auth);
        expect(res.status, `${e.name} ${JSON.stringify(res.body)}`).to.equal(400);
        expect(res.body.code).to.equal('validation_error');
        expect(res.body.details, e.name).to.have.property('quantity');
      }
      expect(await movementCount(company.id)).to.equal(before);
      expect(await balanceOf(ids.product, ids.a)).to.equal(100);
    });
  }

  it('answers 400 for a JSON number that overflows to infinity (1e999 unquoted)', async () => {
    for (const e of endpoints(company, ids)) {
      const raw = JSON.stringify({ ...e.body, quantity: 12345 }).replace('12345', '1e999');
      const res = await api('POST', e.path, { ...e.auth, rawBody: raw });
      expect(res.status, e.name).to.equal(400);
      expect(res.body.details).to.have.property('quantity');
    }
  });

  it('answers 400 for a negative quantity except on move/', async () => {
    for (const e of endpoints(company, ids).filter((x) => x.name !== 'move/')) {
      const res = await post(e.path, { ...e.body, quantity: -1 }, e.auth);
      expect(res.status, e.name).to.equal(400);
      expect(res.body.details).to.have.property('quantity');
    }
  });

  it('answers 400 for more decimals than the product allows, naming quantity, and books nothing', async () => {
    const before = await movementCount(company.id);
    for (const e of endpoints(company, ids)) {
      const res = await post(e.path, { ...e.body, quantity: e.name === 'move/' ? -1.5 : 1.5 }, e.auth);
      expect(res.status, e.name).to.equal(400);
      expect(res.body.details.quantity).to.match(/whole number/);
    }
    const dim = await post(
      `/api/v1/widget/${ids.dimensional}/transaction/`,
      { operation: 'add', quantity: 1.234, location_id: ids.a },
      { apiKey: company.apiKey },
    );
    expect(dim.status).to.equal(400);
    expect(dim.body.details.quantity).to.match(/2 decimal places/);
    expect(await movementCount(company.id)).to.equal(before);
  });

  it('answers 400 naming the field for malformed UUIDs, missing fields and unknown fields', async () => {
    for (const e of endpoints(company, ids)) {
      const uuidFields = Object.keys(e.body).filter((k) => k.endsWith('_id'));
      for (const field of uuidFields) {
        const malformed = await post(e.path, { ...e.body, [field]: 'not-a-uuid' }, e.auth);
        expect(malformed.status, `${e.name} ${field}`).to.equal(400);
        expect(malformed.body.details).to.have.property(field);
        const missing: Record<string, unknown> = { ...e.body };
        delete missing[field];
        const absent = await post(e.path, missing, e.auth);
        expect(absent.status, `${e.name} without ${field}`).to.equal(400);
        expect(absent.body.details).to.have.property(field);
      }
      const unknown = await post(e.path, { ...e.body, sneaky: 1 }, e.auth);
      expect(unknown.status).to.equal(400);
      expect(unknown.body.details).to.have.property('sneaky');
      const longReason = await post(e.path, { ...e.body, reason: 'r'.repeat(501) }, e.auth);
      expect(longReason.status).to.equal(400);
      expect(longReason.body.details).to.have.property('reason');
    }
    const badPath = await post('/api/v1/widget/not-a-uuid/transaction/', { operation: 'add', quantity: 1, location_id: ids.a }, { apiKey: company.apiKey });
    expect(badPath.status).to.equal(400);
    expect(badPath.body.details).to.have.property('id');
    const badOperation = await post(
      `/api/v1/widget/${ids.product}/transaction/`,
      { operation: 'steal', quantity: 1, location_id: ids.a },
      { apiKey: company.apiKey },
    );
    expect(badOperation.body.details).to.have.property('operation');
  });

  it('answers 404 for a product or location that exists nowhere', async () => {
    const nowhere = '6f1c7a52-3a3e-4b7e-9f39-2f4f3d0f0c11';
    const res = await post(`/api/v1/widget/${nowhere}/transaction/`, { operation: 'add', quantity: 1, location_id: ids.a }, { apiKey: company.apiKey });
    expect(res.status).to.equal(404);
    const loc = await post(`/api/v1/widget/${ids.product}/transaction/`, { operation: 'add', quantity: 1, location_id: nowhere }, { apiKey: company.apiKey });
    expect(loc.status).to.equal(404);
  });
});

describe('company isolation on bookings and stock', () => {
  it("answers 403 access_denied for another company's product, location, batch or item anywhere in a request, and books nothing", async () => {
    const [mine, theirs] = [await buildCompany(), await buildCompany()];
    const myProduct = await buildProduct(mine);
    const myShelf = await buildLocation(mine);
    const [myOther] = [await buildLocation(mine)];
    await addStock(mine, myProduct.id, myShelf.id, 10);
    const theirProduct = await buildProduct(theirs);
    const theirShelf = await buildLocation(theirs);
    await addStock(theirs, theirProduct.id, theirShelf.id, 10);
    const theirBatchProduct = await buildProduct(theirs, { profile: 'BATCH' });
    const theirBatch = await addStock(theirs, theirBatchProduct.id, theirShelf.id, 5, { batch: { code: `iso-${theirBatchProduct.id}` } });
    const theirItems = await addStock(theirs, (await buildProduct(theirs, { profile: 'SERIALIZED' })).id, theirShelf.id, 1);
    const myBatchProduct = await buildProduct(mine, { profile: 'BATCH' });
    const mySerial = await buildProduct(mine, { profile: 'SERIALIZED' });

    const key = { apiKey: mine.apiKey };
    const attempts = [
      post(`/api/v1/widget/${theirProduct.id}/transaction/`, { operation: 'subtract', quantity: 1, location_id: myShelf.id }, key),
      post(`/api/v1/widget/${myProduct.id}/transaction/`, { operation: 'add', quantity: 1, location_id: theirShelf.id }, key),
      post(`/api/v1/widget/${myBatchProduct.id}/transaction/`, { operation: 'add', quantity: 1, location_id: myShelf.id, batch_id: theirBatch.batch.id }, key),
      post(`/api/v1/widget/${mySerial.id}/transaction/`, { operation: 'subtract', location_id: myShelf.id, item_ids: [theirItems.items[0].id] }, key),
      post('/api/v1/widget/move/', { product_id: theirProduct.id, location_id: theirShelf.id, quantity: -1 }, key),
      post('/api/v1/widget/transfer/', { product_id: myProduct.id, from_location_id: myShelf.id, to_location_id: theirShelf.id, quantity: 1 }, key),
      post('/api/v1/widget/transfer/', { product_id: theirProduct.id, from_location_id: theirShelf.id, to_location_id: myOther.id, quantity: 1 }, key),
      post('/api/v1/movements/', { product_id: myProduct.id, from_location_id: theirShelf.id, to_location_id: myShelf.id, quantity: 1 }, { token: mine.token }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status, JSON.stringify(res.body)).to.equal(403);
      expect(res.body).to.include({ code: 'access_denied', error: 'Access denied.' });
    }
    expect(await balanceOf(theirProduct.id, theirShelf.id)).to.equal(10);
    expect(await balanceOf(myProduct.id, myShelf.id)).to.equal(10);
  });

  it("never shows another company's products, stock or movements, and refuses their ids as filters", async () => {
    const [mine, theirs] = [await buildCompany(), await buildCompany()];
    const theirProduct = await buildProduct(theirs);
    const theirShelf = await buildLocation(theirs);
    await addStock(theirs, theirProduct.id, theirShelf.id, 3);
    const myProduct = await buildProduct(mine);
    const list = await api('GET', '/api/v1/widget/', { apiKey: mine.apiKey });
    expect(list.body.products.map((p: { id: string }) => p.id)).to.deep.equal([myProduct.id]);
    expect((await api('GET', `/api/v1/widget/${theirProduct.id}/`, { apiKey: mine.apiKey })).status).to.equal(403);
    expect((await api('GET', `/api/v1/widget/?location_id=${theirShelf.id}`, { apiKey: mine.apiKey })).status).to.equal(403);
    const stock = await api('GET', '/api/v1/stock/', { token: mine.token });
    expect(stock.body.results.map((r: { product_id: string }) => r.product_id)).to.deep.equal([myProduct.id]);
    expect((await api('GET', `/api/v1/stock/?product_id=${theirProduct.id}`, { token: mine.token })).status).to.equal(403);
    const ledger = await api('GET', '/api/v1/movements/', { token: mine.token });
    expect(ledger.body.count).to.equal(0);
    expect((await api('GET', `/api/v1/movements/?location_id=${theirShelf.id}`, { token: mine.token })).status).to.equal(403);
  });
});

describe('authentication on bookings', () => {
  it('answers 401 without a key and 403 for a key without write', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const shelf = await buildLocation(company);
    const body = { operation: 'add', quantity: 1, location_id: shelf.id };
    const none = await post(`/api/v1/widget/${product.id}/transaction/`, body);
    expect(none.status).to.equal(401);
    const readOnly = await buildApiKey(company, { permissions: ['read'] });
    const denied = await post(`/api/v1/widget/${product.id}/transaction/`, body, { apiKey: readOnly.key });
    expect(denied.status).to.equal(403);
    expect(denied.body.code).to.equal('permission_denied');
    expect(await balanceOf(product.id, shelf.id)).to.equal(0);
  });
});

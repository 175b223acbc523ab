/**
 * /api/v1/product-models/ through the gateway: create, list (filters, order, pages), read, PATCH, PUT and
 * DELETE; SKUs unique per company (also under concurrency); the profile lock once stock was booked; delete
 * refused for a product in use; company isolation; bad input that changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { api, del, get, patch, post } from '../../support/api';
import { BadCase, expectAccessDenied, expectErrorShape, expectNotFound, expectValidationError } from '../../support/assertions';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct, buildUser, omit, unique } from '../../support/builders';
import { system } from '../../support/hooks';
import { productCount, readProduct } from '../../support/products';
import { count } from '../../support/sql';

const PRODUCT_KEYS = [
  'id',
  'sku',
  'name',
  'description',
  'profile',
  'engine_type',
  'engine_config',
  'unit',
  'decimals',
  'is_active',
  'barcode',
  'created_at',
  'updated_at',
];
const long = (n: number) => 'x'.repeat(n);

async function listAll(company: TestCompany, query = ''): Promise<Array<Record<string, any>>> {
  const res = await get(`/api/v1/product-models/?page_size=500${query}`, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.next).to.equal(null);
  return res.body.results;
}

describe('POST /api/v1/product-models/', () => {
  it('creates a STANDARD product and answers 201 with the product, its engine config completed with defaults', async () => {
    const company = await buildCompany();
    const sku = unique('SKU');
    const res = await post(
      '/api/v1/product-models/',
      { sku, name: 'Hex bolt M8', profile: 'STANDARD', engine_config: { engine_type: 'counter', min_stock: 5 }, description: 'Zinc plated' },
      { token: company.token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.have.all.keys(...PRODUCT_KEYS);
    expect(res.body).to.include({
      sku,
      name: 'Hex bolt M8',
      description: 'Zinc plated',
      profile: 'STANDARD',
      engine_type: 'counter',
      unit: 'pcs',
      decimals: 0,
      is_active: true,
    });
    expect(res.body.engine_config).to.deep.equal({ engine_type: 'counter', unit: 'pcs', decimals: 0, min_stock: 5 });
    expect(res.body.id).to.match(/^[0-9a-f-]{36}$/);
    expect(new Date(res.body.created_at).toISOString()).to.equal(res.body.created_at);

    const stored = await readProduct(res.body.id);
    expect(stored).to.include({ company_id: company.id, sku, unit: 'pcs', decimals: 0, is_active: true });
    expect(stored.engine_config).to.deep.equal(res.body.engine_config);
  });

  it('creates one product of each profile, copying unit and decimals from the engine config', async () => {
    const company = await buildCompany();
    const cases = [
      { profile: 'STANDARD', engine_config: { engine_type: 'counter', unit: 'box', decimals: 1 }, unit: 'box', decimals: 1 },
      { profile: 'SERIALIZED', engine_config: { engine_type: 'serialized' }, unit: 'pcs', decimals: 0 },
      { profile: 'BATCH', engine_config: { engine_type: 'batch', unit: 'bottle' }, unit: 'bottle', decimals: 0 },
      { profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'kg', decimals: 3 }, unit: 'kg', decimals: 3 },
    ];
    for (const c of cases) {
      const res = await post(
        '/api/v1/product-models/',
        { sku: unique('SKU'), name: unique('P'), profile: c.profile, engine_config: c.engine_config },
        { token: company.token },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body).to.include({ profile: c.profile, unit: c.unit, decimals: c.decimals, engine_type: c.engine_config.engine_type });
      expect(await readProduct(res.body.id)).to.include({ unit: c.unit, decimals: c.decimals, profile: c.profile });
    }
    expect(await productCount(company.id)).to.equal(4);
  });

  it('trims sku and name, and stores no description as null', async () => {
    const company = await buildCompany();
    const sku = unique('SKU');
    const res = await post(
      '/api/v1/product-models/',
      { sku: `  ${sku} `, name: ' Washer ', profile: 'STANDARD', engine_config: { engine_type: 'counter' } },
      { token: company.token },
    );
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ sku, name: 'Washer', description: null });
  });

  describe('with bad input', () => {
    const valid = () => ({ sku: unique('SKU'), name: 'Product', profile: 'STANDARD', engine_config: { engine_type: 'counter' } });
    const without = (key: string) => omit(valid(), key);
    const cases: BadCase[] = [
      { when: 'sku is missing', body: without('sku'), fields: ['sku'] },
      { when: 'name is missing', body: without('name'), fields: ['name'] },
      { when: 'profile is missing', body: without('profile'), fields: ['profile'] },
      { when: 'engine_config is missing', body: without('engine_config'), fields: ['engine_config'] },
      { when: 'the body is empty', body: {}, fields: ['sku', 'name', 'profile', 'engine_config'] },
      { when: 'sku is a number', body: { ...valid(), sku: 1234 }, fields: ['sku'] },
      { when: 'name is an array', body: { ...valid(), name: ['Product'] }, fields: ['name'] },
      { when: 'profile is not a known profile', body: { ...valid(), profile: 'NOPE' }, fields: ['profile'] },
      { when: 'profile is lower case', body: { ...valid(), profile: 'standard' }, fields: ['profile'] },
      { when: 'engine_config is a string', body: { ...valid(), engine_config: 'counter' }, fields: ['engine_config'] },
      { when: 'engine_config is an array', body: { ...valid(), engine_config: [{ engine_type: 'counter' }] }, fields: ['engine_config'] },
      { when: 'engine_config is null', body: { ...valid(), engine_config: null }, fields: ['engine_config'] },
      { when: 'description is a number', body: { ...valid(), description: 5 }, fields: ['description'] },
      { when: 'sku is 101 characters long', body: { ...valid(), sku: long(101) }, fields: ['sku'] },
      { when: 'sku is only blanks', body: { ...valid(), sku: '   ' }, fields: ['sku'] },
      { when: 'name is 201 characters long', body: { ...valid(), name: long(201) }, fields: ['name'] },
      { when: 'name is empty', body: { ...valid(), name: '' }, fields: ['name'] },
      { when: 'description is 5001 characters long', body: { ...valid(), description: long(5001) }, fields: ['description'] },
      { when: 'an unknown field (company_id) is sent', body: { ...valid(), company_id: randomUUID() }, fields: ['company_id'] },
      { when: 'an unknown field (unit) is sent at the top level', body: { ...valid(), unit: 'kg' }, fields: ['unit'] },
      { when: 'an unknown field (is_active) is sent', body: { ...valid(), is_active: false }, fields: ['is_active'] },
      { when: 'the body is a JSON array', body: [valid()], fields: ['body'] },
    ];
    for (const c of cases) {
      it(`answers 400 naming ${c.fields.join(', ')} when ${c.when}, and creates no product`, async () => {
        const company = await buildCompany();
        const res = await post('/api/v1/product-models/', c.body, { token: company.token });
        expectValidationError(res, ...c.fields);
        expect(await productCount(company.id)).to.equal(0);
      });
    }

    it('accepts sku of 100, name of 200 and description of 5000 characters (the limits themselves)', async () => {
      const company = await buildCompany();
      const res = await post('/api/v1/product-models/', { ...valid(), sku: long(100), name: long(200), description: long(5000) }, { token: company.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    });

    it('answers 400 validation_error for malformed JSON and creates no product', async () => {
      const company = await buildCompany();
      const res = await api('POST', '/api/v1/product-models/', { token: company.token, rawBody: '{"sku": "A",' });
      expectValidationError(res, 'body');
      expect(await productCount(company.id)).to.equal(0);
    });
  });
});

describe('SKU uniqueness on /api/v1/product-models/', () => {
  it('answers 409 already_exists naming sku for a second product with the same SKU, and creates nothing', async () => {
    const company = await buildCompany();
    const first = await buildProduct(company);
    const res = await post(
      '/api/v1/product-models/',
      { sku: first.sku, name: 'Another', profile: 'BATCH', engine_config: { engine_type: 'batch' } },
      { token: company.token },
    );
    expectErrorShape(res, 409, 'already_exists');
    expect(res.body.details).to.have.all.keys('sku');
    expect(await productCount(company.id)).to.equal(1);
  });

  it('lets two companies use the same SKU', async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const sku = unique('SHARED');
    await buildProduct(a, { sku });
    const res = await post(
      '/api/v1/product-models/',
      { sku, name: 'B product', profile: 'STANDARD', engine_config: { engine_type: 'counter' } },
      { token: b.token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  });

  it('creates exactly one product when 10 requests create the same SKU at once; the other 9 get 409 already_exists', async () => {
    const company = await buildCompany();
    const sku = unique('RACE');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post('/api/v1/product-models/', { sku, name: `Racer ${i}`, profile: 'STANDARD', engine_config: { engine_type: 'counter' } }, { token: company.token }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).to.deep.equal([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const res of answers.filter((r) => r.status === 409)) {
      expectErrorShape(res, 409, 'already_exists');
      expect(res.body.details).to.have.all.keys('sku');
    }
    expect(await count('SELECT count(*) FROM product_models WHERE company_id = $1 AND sku = $2', [company.id, sku])).to.equal(1);
  });

  it('answers 409 already_exists when PATCH or PUT gives a product the SKU of another, and leaves it unchanged', async () => {
    const company = await buildCompany();
    const taken = await buildProduct(company);
    const product = await buildProduct(company);
    const before = await readProduct(product.id);
    const patched = await patch(`/api/v1/product-models/${product.id}/`, { sku: taken.sku }, { token: company.token });
    expectErrorShape(patched, 409, 'already_exists');
    expect(patched.body.details).to.have.all.keys('sku');
    const put = await api('PUT', `/api/v1/product-models/${product.id}/`, {
      token: company.token,
      body: { sku: taken.sku, name: 'x', profile: 'STANDARD', engine_config: { engine_type: 'counter' } },
    });
    expectErrorShape(put, 409, 'already_exists');
    expect(await readProduct(product.id)).to.deep.equal(before);
  });
});

describe('GET /api/v1/product-models/', () => {
  it('lists the company products ordered by name, paginated as {count, next, previous, results}', async () => {
    const company = await buildCompany();
    for (const name of ['Cable', 'anchor', 'Bolt', 'Drill', 'Eyelet']) await buildProduct(company, { name });
    const first = await get('/api/v1/product-models/?page_size=2', { token: company.token });
    expect(first.status).to.equal(200);
    expect(first.body).to.have.all.keys('count', 'next', 'previous', 'results');
    expect(first.body.count).to.equal(5);
    expect(first.body.previous).to.equal(null);
    expect(first.body.results.map((p: { name: string }) => p.name)).to.deep.equal(['anchor', 'Bolt']);
    expect(first.body.results[0]).to.have.all.keys(...PRODUCT_KEYS);
    const nextUrl = new URL(first.body.next);
    expect(nextUrl.pathname).to.equal('/api/v1/product-models/');
    expect(nextUrl.searchParams.get('page')).to.equal('2');

    const second = await get(`${nextUrl.pathname}${nextUrl.search}`, { token: company.token });
    expect(second.body.results.map((p: { name: string }) => p.name)).to.deep.equal(['Cable', 'Drill']);
    const third = await get('/api/v1/product-models/?page_size=2&page=3', { token: company.token });
    expect(third.body.results.map((p: { name: string }) => p.name)).to.deep.equal(['Eyelet']);
    expect(third.body.next).to.equal(null);
    expect(third.body.previous).to.be.a('string');
  });

  it('filters by profile and by is_active', async () => {
    const company = await buildCompany();
    const standard = await buildProduct(company);
    const batch = await buildProduct(company, { profile: 'BATCH' });
    const dimensional = await buildProduct(company, { profile: 'DIMENSIONAL' });
    const retired = await buildProduct(company, { profile: 'BATCH' });
    expect((await patch(`/api/v1/product-models/${retired.id}/`, { is_active: false }, { token: company.token })).status).to.equal(200);

    expect((await listAll(company, '&profile=BATCH')).map((p) => p.id)).to.have.members([batch.id, retired.id]);
    expect((await listAll(company, '&profile=DIMENSIONAL')).map((p) => p.id)).to.deep.equal([dimensional.id]);
    expect((await listAll(company, '&is_active=false')).map((p) => p.id)).to.deep.equal([retired.id]);
    expect((await listAll(company, '&is_active=true')).map((p) => p.id)).to.have.members([standard.id, batch.id, dimensional.id]);
    expect((await listAll(company, '&profile=BATCH&is_active=true')).map((p) => p.id)).to.deep.equal([batch.id]);
  });

  it('searches sku and name as a case-insensitive substring, with % and _ taken literally', async () => {
    const company = await buildCompany();
    const bolt = await buildProduct(company, { name: 'Hex Bolt', sku: 'HW-100' });
    const washer = await buildProduct(company, { name: 'Washer', sku: 'hw-bolt-200' });
    const nut = await buildProduct(company, { name: 'Nut 50% off', sku: 'NUT_1' });
    await buildProduct(company, { name: 'Drill', sku: 'TOOL-1' });

    expect((await listAll(company, '&search=BOLT')).map((p) => p.id)).to.have.members([bolt.id, washer.id]);
    expect((await listAll(company, '&search=hw-')).map((p) => p.id)).to.have.members([bolt.id, washer.id]);
    expect((await listAll(company, '&search=50%25')).map((p) => p.id)).to.deep.equal([nut.id]);
    expect((await listAll(company, '&search=%25')).map((p) => p.id)).to.deep.equal([nut.id]);
    expect((await listAll(company, '&search=T_1')).map((p) => p.id)).to.deep.equal([nut.id]);
    expect(await listAll(company, '&search=nothing-like-this')).to.deep.equal([]);
    expect(await listAll(company, '&search=')).to.have.length(4);
  });

  it('answers 400 naming the parameter for a bad filter or page, or an unknown parameter', async () => {
    const company = await buildCompany();
    expectValidationError(await get('/api/v1/product-models/?profile=NOPE', { token: company.token }), 'profile');
    expectValidationError(await get('/api/v1/product-models/?is_active=maybe', { token: company.token }), 'is_active');
    expectValidationError(await get('/api/v1/product-models/?page_size=501', { token: company.token }), 'page_size');
    expectValidationError(await get('/api/v1/product-models/?page=0', { token: company.token }), 'page');
    expectValidationError(await get(`/api/v1/product-models/?search=${long(201)}`, { token: company.token }), 'search');
    expectValidationError(await get(`/api/v1/product-models/?company_id=${randomUUID()}`, { token: company.token }), 'company_id');
  });

  it('answers 401 without a bearer token, and an API key does not open it', async () => {
    const company = await buildCompany();
    expectErrorShape(await get('/api/v1/product-models/'), 401, 'authentication_failed');
    expectErrorShape(await get('/api/v1/product-models/', { apiKey: company.apiKey }), 401, 'authentication_failed');
  });
});

describe('GET /api/v1/product-models/{id}/', () => {
  it('answers the product', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { profile: 'DIMENSIONAL' });
    const res = await get(`/api/v1/product-models/${product.id}/`, { token: company.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(product);
  });

  it('answers 404 not_found for an id that exists nowhere and 400 naming id for a malformed one', async () => {
    const company = await buildCompany();
    expectNotFound(await get(`/api/v1/product-models/${randomUUID()}/`, { token: company.token }));
    const bad = await get('/api/v1/product-models/not-a-uuid/', { token: company.token });
    expectValidationError(bad, 'id');
    expect(bad.body.details).to.have.all.keys('id');
  });
});

describe('PATCH /api/v1/product-models/{id}/', () => {
  it('changes sku, name, description and is_active, and keeps the rest', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const sku = unique('NEW');
    const res = await patch(
      `/api/v1/product-models/${product.id}/`,
      { sku, name: 'Renamed', description: 'Now described', is_active: false },
      { token: company.token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ id: product.id, sku, name: 'Renamed', description: 'Now described', is_active: false, profile: 'STANDARD' });
    expect(res.body.engine_config).to.deep.equal(product.engine_config);
    expect(new Date(res.body.updated_at).getTime()).to.be.at.least(new Date(res.body.created_at).getTime());
    expect((await get(`/api/v1/product-models/${product.id}/`, { token: company.token })).body).to.deep.equal(res.body);

    const cleared = await patch(`/api/v1/product-models/${product.id}/`, { description: null, is_active: true }, { token: company.token });
    expect(cleared.body).to.include({ description: null, is_active: true });
  });

  it('replaces the engine config (validated against the current profile) and copies unit and decimals', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { profile: 'DIMENSIONAL' });
    const res = await patch(
      `/api/v1/product-models/${product.id}/`,
      { engine_config: { engine_type: 'dimensional', unit: 'l', decimals: 3, max_stock: 500 } },
      { token: company.token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ unit: 'l', decimals: 3, profile: 'DIMENSIONAL' });
    expect(res.body.engine_config).to.deep.equal({ engine_type: 'dimensional', unit: 'l', decimals: 3, max_stock: 500 });
    expect(await readProduct(product.id)).to.include({ unit: 'l', decimals: 3 });
  });

  it('changes the profile with a matching engine config while no stock was ever booked', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const res = await patch(
      `/api/v1/product-models/${product.id}/`,
      { profile: 'BATCH', engine_config: { engine_type: 'batch', unit: 'crate' } },
      { token: company.token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ profile: 'BATCH', engine_type: 'batch', unit: 'crate', decimals: 0 });
  });

  it('answers 400 invalid_engine_config when the profile changes alone and the current config does not match it, changing nothing', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const before = await readProduct(product.id);
    const res = await patch(`/api/v1/product-models/${product.id}/`, { profile: 'SERIALIZED' }, { token: company.token });
    expectErrorShape(res, 400, 'invalid_engine_config');
    expect(res.body.validation_errors.map((e: { path: string }) => e.path)).to.deep.equal(['engine_type']);
    expect(await readProduct(product.id)).to.deep.equal(before);
  });

  it('answers 409 profile_locked once stock was booked, changing nothing; other changes still work', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company);
    const product = await buildProduct(company);
    await addStock(company, product.id, shelf.id, 4);
    const before = await readProduct(product.id);

    const res = await patch(`/api/v1/product-models/${product.id}/`, { profile: 'BATCH', engine_config: { engine_type: 'batch' } }, { token: company.token });
    expectErrorShape(res, 409, 'profile_locked');
    expect(res.body.details).to.have.all.keys('profile');
    expect(await readProduct(product.id)).to.deep.equal(before);

    const same = await patch(
      `/api/v1/product-models/${product.id}/`,
      { profile: 'STANDARD', name: 'Still standard', engine_config: { engine_type: 'counter', min_stock: 2 } },
      { token: company.token },
    );
    expect(same.status, JSON.stringify(same.body)).to.equal(200);
    expect(same.body).to.include({ profile: 'STANDARD', name: 'Still standard' });
    expect(same.body.engine_config).to.include({ min_stock: 2 });
  });

  describe('with bad input', () => {
    const cases: BadCase[] = [
      { when: 'the body is empty', body: {}, fields: ['body'] },
      { when: 'sku is 101 characters long', body: { sku: long(101) }, fields: ['sku'] },
      { when: 'name is empty', body: { name: '' }, fields: ['name'] },
      { when: 'is_active is a string', body: { is_active: 'false' }, fields: ['is_active'] },
      { when: 'profile is not a known profile', body: { profile: 'NOPE' }, fields: ['profile'] },
      { when: 'engine_config is a string', body: { engine_config: 'counter' }, fields: ['engine_config'] },
      { when: 'description is 5001 characters long', body: { description: long(5001) }, fields: ['description'] },
      { when: 'an unknown field (id) is sent', body: { id: randomUUID() }, fields: ['id'] },
      { when: 'an unknown field (company_id) is sent', body: { company_id: randomUUID() }, fields: ['company_id'] },
      { when: 'an unknown field (unit) is sent', body: { unit: 'kg' }, fields: ['unit'] },
      { when: 'one field is valid and another is not', body: { name: 'Good name', sku: 42 }, fields: ['sku'] },
    ];
    for (const c of cases) {
      it(`answers 400 naming ${c.fields.join(', ')} when ${c.when}, and leaves the product unchanged`, async () => {
        const company = await buildCompany();
        const product = await buildProduct(company);
        const before = await readProduct(product.id);
        const res = await patch(`/api/v1/product-models/${product.id}/`, c.body, { token: company.token });
        expectValidationError(res, ...c.fields);
        expect(await readProduct(product.id)).to.deep.equal(before);
      });
    }
  });
});

describe('PUT /api/v1/product-models/{id}/', () => {
  const put = (company: TestCompany, id: string, body: unknown) => api('PUT', `/api/v1/product-models/${id}/`, { token: company.token, body });

  it('replaces sku, name, profile, engine_config and description; an absent description is cleared, is_active is kept', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    await patch(`/api/v1/product-models/${product.id}/`, { description: 'old', is_active: false }, { token: company.token });
    const sku = unique('PUT');
    const res = await put(company, product.id, { sku, name: 'Cable', profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ id: product.id, sku, name: 'Cable', profile: 'DIMENSIONAL', unit: 'm', decimals: 2, description: null, is_active: false });
    expect(await readProduct(product.id)).to.include({ sku, profile: 'DIMENSIONAL', unit: 'm', decimals: 2, description: null });
  });

  it('answers 400 naming every missing field, and leaves the product unchanged', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const before = await readProduct(product.id);
    const res = await put(company, product.id, { name: 'Only a name' });
    expectValidationError(res, 'sku', 'profile', 'engine_config');
    expect(await readProduct(product.id)).to.deep.equal(before);
  });

  it('answers 400 naming is_active, which PUT does not take', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const res = await put(company, product.id, {
      sku: product.sku,
      name: 'x',
      profile: 'STANDARD',
      engine_config: { engine_type: 'counter' },
      is_active: false,
    });
    expectValidationError(res, 'is_active');
  });

  it('answers 409 profile_locked for a new profile once stock was booked, and 400 invalid_engine_config for a mismatched config', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company);
    const product = await buildProduct(company);
    await addStock(company, product.id, shelf.id, 1);
    const before = await readProduct(product.id);
    const locked = await put(company, product.id, { sku: product.sku, name: 'x', profile: 'SERIALIZED', engine_config: { engine_type: 'serialized' } });
    expectErrorShape(locked, 409, 'profile_locked');
    const mismatched = await put(company, product.id, { sku: product.sku, name: 'x', profile: 'STANDARD', engine_config: { engine_type: 'batch' } });
    expectErrorShape(mismatched, 400, 'invalid_engine_config');
    expect(await readProduct(product.id)).to.deep.equal(before);
  });

  it('answers 404 for an id that exists nowhere', async () => {
    const company = await buildCompany();
    const res = await put(company, randomUUID(), { sku: unique('S'), name: 'x', profile: 'STANDARD', engine_config: { engine_type: 'counter' } });
    expectNotFound(res);
    expect(await productCount(company.id)).to.equal(0);
  });
});

describe('DELETE /api/v1/product-models/{id}/', () => {
  it('deletes a product that nothing refers to (204), after which it is gone', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const keep = await buildProduct(company);
    const res = await del(`/api/v1/product-models/${product.id}/`, { token: company.token });
    expect(res.status).to.equal(204);
    expect(res.body).to.equal('');
    expectNotFound(await get(`/api/v1/product-models/${product.id}/`, { token: company.token }));
    expect(await count('SELECT count(*) FROM product_models WHERE id = $1', [product.id])).to.equal(0);
    expect((await listAll(company)).map((p) => p.id)).to.deep.equal([keep.id]);
    expectNotFound(await del(`/api/v1/product-models/${product.id}/`, { token: company.token }));
  });

  it('answers 409 product_in_use, telling to deactivate instead, for a product with stock; it stays and can be deactivated', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company);
    const product = await buildProduct(company);
    await addStock(company, product.id, shelf.id, 6);
    const before = await readProduct(product.id);

    const res = await del(`/api/v1/product-models/${product.id}/`, { token: company.token });
    expectErrorShape(res, 409, 'product_in_use');
    expect(res.body.error)
      .to.match(/deactivate/i)
      .and.match(/is_active/);
    expect(res.body.details.used_by).to.include.members(['stock_movements', 'stock_balances']);
    expect(await readProduct(product.id)).to.deep.equal(before);

    const off = await patch(`/api/v1/product-models/${product.id}/`, { is_active: false }, { token: company.token });
    expect(off.status).to.equal(200);
    expect(off.body.is_active).to.equal(false);
  });

  it('answers 409 product_in_use for a product that only a work order or a batch refers to', async () => {
    const company = await buildCompany();
    const sql = system().db.sequelize;
    const ordered = await buildProduct(company);
    await sql.query("INSERT INTO work_orders (company_id, number, title, product_id) VALUES ($1, $2, 'Assemble', $3)", {
      bind: [company.id, unique('WO'), ordered.id],
    });
    const batched = await buildProduct(company, { profile: 'BATCH' });
    await sql.query('INSERT INTO batches (company_id, product_id, code) VALUES ($1, $2, $3)', { bind: [company.id, batched.id, unique('LOT')] });

    const first = await del(`/api/v1/product-models/${ordered.id}/`, { token: company.token });
    expectErrorShape(first, 409, 'product_in_use');
    expect(first.body.details.used_by).to.deep.equal(['work_orders']);
    const second = await del(`/api/v1/product-models/${batched.id}/`, { token: company.token });
    expectErrorShape(second, 409, 'product_in_use');
    expect(second.body.details.used_by).to.deep.equal(['batches']);
    expect(await productCount(company.id)).to.equal(2);
  });
});

describe('company isolation: /api/v1/product-models/', () => {
  async function twoCompanies() {
    const a = await buildCompany();
    const b = await buildCompany();
    const aProduct = await buildProduct(a, { name: unique('A_Product') });
    return { a, b, aProduct, bMember: await buildUser(b) };
  }

  it("lists none of A's products to B, whatever the filters", async () => {
    const { a, b, aProduct } = await twoCompanies();
    const bProduct = await buildProduct(b);
    for (const query of ['', '&profile=STANDARD', `&search=${aProduct.sku}`, '&is_active=true']) {
      const listed = await listAll(b, query);
      expect(listed.map((p) => p.id)).not.to.include(aProduct.id);
    }
    expect((await listAll(b)).map((p) => p.id)).to.deep.equal([bProduct.id]);
    expect((await listAll(a)).map((p) => p.id)).to.deep.equal([aProduct.id]);
  });

  it("answers 403 access_denied to B (admin or member) reading A's product, with nothing of it in the answer", async () => {
    const { a, b, aProduct, bMember } = await twoCompanies();
    for (const token of [b.token, bMember.token]) {
      expectAccessDenied(await get(`/api/v1/product-models/${aProduct.id}/`, { token }), [aProduct.id, aProduct.sku, aProduct.name, a.id]);
    }
  });

  it("answers 403 access_denied to B changing, replacing or deleting A's product, and leaves it unchanged", async () => {
    const { a, b, aProduct } = await twoCompanies();
    const before = await readProduct(aProduct.id);
    const secrets = [aProduct.id, aProduct.sku, aProduct.name, a.id];
    for (const body of [{ name: 'hijacked' }, { is_active: false }, { profile: 'BATCH', engine_config: { engine_type: 'batch' } }, { sku: unique('S') }]) {
      expectAccessDenied(await patch(`/api/v1/product-models/${aProduct.id}/`, body, { token: b.token }), secrets);
    }
    const put = await api('PUT', `/api/v1/product-models/${aProduct.id}/`, {
      token: b.token,
      body: { sku: unique('S'), name: 'hijacked', profile: 'STANDARD', engine_config: { engine_type: 'counter' } },
    });
    expectAccessDenied(put, secrets);
    expectAccessDenied(await del(`/api/v1/product-models/${aProduct.id}/`, { token: b.token }), secrets);
    expect(await readProduct(aProduct.id)).to.deep.equal(before);
    expect((await get(`/api/v1/product-models/${aProduct.id}/`, { token: a.token })).status).to.equal(200);
  });

  it("answers 403 access_denied (not a validation error) to B patching A's product with an invalid config", async () => {
    const { a, b, aProduct } = await twoCompanies();
    const before = await readProduct(aProduct.id);
    expectAccessDenied(await patch(`/api/v1/product-models/${aProduct.id}/`, { engine_config: { engine_type: 'nope' } }, { token: b.token }), [a.id]);
    expect(await readProduct(aProduct.id)).to.deep.equal(before);
  });
});

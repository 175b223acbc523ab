/**
 * Product barcodes (docs/api/barcodes-and-camera.md): an optional GTIN (EAN-8, UPC-A, EAN-13, GTIN-14) with
 * its check digit, unique in a company as a GTIN-14 (another company may use the same one), on create,
 * PATCH, PUT and the import; found by `?barcode=` on the core product list and on the widget's list, through
 * the partial index of migration 0013.
 */
import { expect } from 'chai';
import { ApiResponse, api, get, patch, post } from '../../support/api';
import { expectErrorShape, expectValidationError } from '../../support/assertions';
import { randomGtin, withCheckDigit, wrongCheckDigit } from '../../support/barcodes';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct, unique } from '../../support/builders';
import { system } from '../../support/hooks';
import { productCount } from '../../support/products';
import { query } from '../../support/sql';

/** Well-known GTINs from real packages (check digits computed by their makers, not by us). */
const REAL = { ean13: '4006381333931', ean8: '96385074', upcA: '036000291452', gtin14: '10012345678902' };

const newProduct = (barcode: unknown, sku = unique('SKU')) => ({
  sku,
  name: unique('Product'),
  profile: 'STANDARD',
  engine_config: { engine_type: 'counter' },
  barcode,
});
const create = (company: TestCompany, body: unknown) => post('/api/v1/product-models/', body, { token: company.token });
const storedBarcodes = async (company: TestCompany) =>
  (await query<{ barcode: string | null }>('SELECT barcode FROM product_models WHERE company_id = $1 ORDER BY barcode', [company.id])).map((r) => r.barcode);

function expectBarcodeTaken(res: ApiResponse) {
  expectErrorShape(res, 409, 'already_exists');
  expect(res.body.details).to.deep.equal({ barcode: 'already exists' });
}

describe('Product barcodes: validation on create and change', () => {
  it('accepts an EAN-13, an EAN-8, a UPC-A and a GTIN-14 with correct check digits, and answers them back', async () => {
    const company = await buildCompany();
    for (const barcode of Object.values(REAL)) {
      const res = await create(company, newProduct(barcode));
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.barcode).to.equal(barcode);
      expect((await get(`/api/v1/product-models/${res.body.id}/`, { token: company.token })).body.barcode).to.equal(barcode);
    }
    expect(await storedBarcodes(company)).to.have.members(Object.values(REAL));
    // Without one, a product has none.
    const plain = await create(company, { ...newProduct(undefined) });
    expect(plain.status).to.equal(201);
    expect(plain.body.barcode).to.equal(null);
  });

  const bad: Array<{ when: string; barcode: unknown; says: RegExp }> = [
    { when: 'an EAN-13 has a wrong check digit', barcode: wrongCheckDigit(REAL.ean13), says: /check digit.*should end in 1/ },
    { when: 'an EAN-8 has a wrong check digit', barcode: wrongCheckDigit(REAL.ean8), says: /check digit/ },
    { when: 'a UPC-A has a wrong check digit', barcode: wrongCheckDigit(REAL.upcA), says: /check digit/ },
    { when: 'a GTIN-14 has a wrong check digit', barcode: wrongCheckDigit(REAL.gtin14), says: /check digit/ },
    { when: 'it has 7 digits', barcode: withCheckDigit('123456'), says: /8, 12, 13 or 14 digits/ },
    { when: 'it has 10 digits', barcode: withCheckDigit('123456789'), says: /8, 12, 13 or 14 digits/ },
    { when: 'it has 11 digits', barcode: withCheckDigit('1234567890'), says: /8, 12, 13 or 14 digits/ },
    { when: 'it has 15 digits', barcode: withCheckDigit('12345678901234'), says: /8, 12, 13 or 14 digits/ },
    { when: 'it has a letter', barcode: '400638133393A', says: /digits only/ },
    { when: 'it has a space inside', barcode: '4006381 333931', says: /digits only/ },
    { when: 'it has a dash', barcode: '4006-381333931', says: /digits only/ },
    { when: 'it is a number, not a string', barcode: 4006381333931, says: /string/ },
  ];
  for (const c of bad) {
    it(`answers 400 naming barcode and creates nothing when ${c.when}`, async () => {
      const company = await buildCompany();
      const res = await create(company, newProduct(c.barcode));
      expectValidationError(res, 'barcode');
      expect(res.body.details.barcode).to.match(c.says);
      expect(await productCount(company.id)).to.equal(0);
    });
  }

  it('refuses a bad barcode on PATCH and PUT too, changing nothing', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { barcode: REAL.ean13 });
    const patched = await patch(`/api/v1/product-models/${product.id}/`, { barcode: wrongCheckDigit(REAL.upcA) }, { token: company.token });
    expectValidationError(patched, 'barcode');
    const put = await api('PUT', `/api/v1/product-models/${product.id}/`, { token: company.token, body: { ...newProduct('12345', product.sku) } });
    expectValidationError(put, 'barcode');
    expect(await storedBarcodes(company)).to.deep.equal([REAL.ean13]);
  });

  it('changes a barcode with PATCH, clears it with null or an empty string, and PUT without one clears it', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { barcode: REAL.ean13 });
    const url = `/api/v1/product-models/${product.id}/`;
    expect((await patch(url, { barcode: ` ${REAL.ean8} ` }, { token: company.token })).body.barcode).to.equal(REAL.ean8);
    expect((await patch(url, { barcode: null }, { token: company.token })).body.barcode).to.equal(null);
    expect((await patch(url, { barcode: REAL.upcA }, { token: company.token })).body.barcode).to.equal(REAL.upcA);
    expect((await patch(url, { barcode: '' }, { token: company.token })).body.barcode).to.equal(null);
    expect((await patch(url, { barcode: REAL.upcA }, { token: company.token })).body.barcode).to.equal(REAL.upcA);
    const put = await api('PUT', url, { token: company.token, body: { ...newProduct(undefined, product.sku), barcode: undefined } });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body.barcode).to.equal(null);
    expect(await storedBarcodes(company)).to.deep.equal([null]);
  });
});

describe('Product barcodes: unique per company', () => {
  it('answers 409 already_exists naming barcode for a second product with the same barcode, creating nothing', async () => {
    const company = await buildCompany();
    await buildProduct(company, { barcode: REAL.ean13 });
    expectBarcodeTaken(await create(company, newProduct(REAL.ean13)));
    expect(await productCount(company.id)).to.equal(1);
  });

  it('treats a UPC-A and the EAN-13 with a leading 0 as one barcode (compared as GTIN-14)', async () => {
    const company = await buildCompany();
    await buildProduct(company, { barcode: REAL.upcA });
    expectBarcodeTaken(await create(company, newProduct(`0${REAL.upcA}`)));
    expectBarcodeTaken(await create(company, newProduct(`00${REAL.upcA}`)));
    expect(await productCount(company.id)).to.equal(1);
  });

  it('answers 409 naming barcode when PATCH gives a product the barcode of another, changing nothing', async () => {
    const company = await buildCompany();
    await buildProduct(company, { barcode: REAL.ean13 });
    const other = await buildProduct(company, { barcode: REAL.ean8 });
    expectBarcodeTaken(await patch(`/api/v1/product-models/${other.id}/`, { barcode: REAL.ean13, name: 'Renamed' }, { token: company.token }));
    const [stored] = await query<{ barcode: string; name: string }>('SELECT barcode, name FROM product_models WHERE id = $1', [other.id]);
    expect(stored).to.deep.equal({ barcode: REAL.ean8, name: other.name });
  });

  it('still names the SKU when the SKU is what is taken', async () => {
    const company = await buildCompany();
    const first = await buildProduct(company, { barcode: REAL.ean13 });
    const res = await create(company, newProduct(REAL.ean8, first.sku));
    expectErrorShape(res, 409, 'already_exists');
    expect(res.body.details).to.deep.equal({ sku: 'already exists' });
  });

  it('lets company B use the barcode company A uses, and many products have none', async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    await buildProduct(a, { barcode: REAL.ean13 });
    const res = await create(b, newProduct(REAL.ean13));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    for (let i = 0; i < 3; i++) expect((await create(a, newProduct(null))).status).to.equal(201);
    expect(await storedBarcodes(a)).to.deep.equal([REAL.ean13, null, null, null]);
  });

  it('keeps one product per barcode when two creates race', async () => {
    const company = await buildCompany();
    const barcode = randomGtin(13);
    const answers = await Promise.all(Array.from({ length: 6 }, () => create(company, newProduct(barcode))));
    expect(answers.filter((r) => r.status === 201)).to.have.length(1);
    for (const r of answers.filter((x) => x.status !== 201)) expectBarcodeTaken(r);
    expect(await productCount(company.id)).to.equal(1);
  });
});

describe('Product barcodes: lookup', () => {
  it('GET /api/v1/product-models/?barcode= finds the product, by its GTIN-14 form, in the company only', async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const wanted = await buildProduct(a, { barcode: REAL.upcA, name: 'Cola 12 oz' });
    await buildProduct(a, { barcode: REAL.ean13 });
    await buildProduct(a);
    const byUpc = await get(`/api/v1/product-models/?barcode=${REAL.upcA}`, { token: a.token });
    expect(byUpc.status).to.equal(200);
    expect(byUpc.body.count).to.equal(1);
    expect(byUpc.body.results.map((p: { id: string }) => p.id)).to.deep.equal([wanted.id]);
    // The EAN-13 a scanner may read from the same bars finds it too.
    const byEan = await get(`/api/v1/product-models/?barcode=0${REAL.upcA}`, { token: a.token });
    expect(byEan.body.results.map((p: { id: string }) => p.id)).to.deep.equal([wanted.id]);
    // Another company's barcode lists nothing; a barcode nobody has lists nothing.
    expect((await get(`/api/v1/product-models/?barcode=${REAL.upcA}`, { token: b.token })).body).to.include({ count: 0 });
    expect((await get(`/api/v1/product-models/?barcode=${REAL.ean8}`, { token: a.token })).body).to.include({ count: 0 });
  });

  it('answers 400 naming barcode for a malformed barcode on the product list', async () => {
    const company = await buildCompany();
    expectValidationError(await get(`/api/v1/product-models/?barcode=${wrongCheckDigit(REAL.ean13)}`, { token: company.token }), 'barcode');
    expectValidationError(await get('/api/v1/product-models/?barcode=abc', { token: company.token }), 'barcode');
  });

  it("GET /api/v1/widget/?barcode= lists just that product with its stock (also at a location); another company's key finds nothing", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const shelf = await buildLocation(a, 'Shelf');
    const other = await buildLocation(a, 'Back room');
    const wanted = await buildProduct(a, { barcode: REAL.ean13, name: 'Pencil' });
    await buildProduct(a, { barcode: REAL.ean8 });
    await addStock(a, wanted.id, shelf.id, 4);
    await addStock(a, wanted.id, other.id, 1);

    const res = await get(`/api/v1/widget/?barcode=${REAL.ean13}`, { apiKey: a.apiKey });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.products).to.deep.equal([
      { id: wanted.id, name: 'Pencil', sku: wanted.sku, stock_display: '5 pcs', engine_type: 'counter', barcode: REAL.ean13 },
    ]);
    expect(res.body.poly_products).to.deep.equal([]);
    expect(res.body.company).to.be.a('string').and.not.empty;

    const atShelf = await get(`/api/v1/widget/?barcode=${REAL.ean13}&location_id=${shelf.id}`, { apiKey: a.apiKey });
    expect(atShelf.body.products.map((p: { stock_display: string }) => p.stock_display)).to.deep.equal(['4 pcs']);

    const none = await get(`/api/v1/widget/?barcode=${REAL.upcA}`, { apiKey: a.apiKey });
    expect(none.status).to.equal(200);
    expect(none.body.products).to.deep.equal([]);

    const foreign = await get(`/api/v1/widget/?barcode=${REAL.ean13}`, { apiKey: b.apiKey });
    expect(foreign.status).to.equal(200);
    expect(foreign.body.products).to.deep.equal([]);

    // The full list and the product detail show the barcode too.
    const all = await get('/api/v1/widget/', { apiKey: a.apiKey });
    expect(all.body.products.find((p: { id: string }) => p.id === wanted.id).barcode).to.equal(REAL.ean13);
    expect((await get(`/api/v1/widget/${wanted.id}/`, { apiKey: a.apiKey })).body.barcode).to.equal(REAL.ean13);
  });

  it('answers 400 naming barcode for a malformed barcode on the widget list', async () => {
    const company = await buildCompany();
    for (const barcode of [wrongCheckDigit(REAL.ean13), '12345', 'x'.repeat(13)]) {
      expectValidationError(await get(`/api/v1/widget/?barcode=${barcode}`, { apiKey: company.apiKey }), 'barcode');
    }
  });

  it('looks barcodes up through the partial unique index', async () => {
    const [index] = await query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE indexname = 'product_models_barcode_unique'");
    expect(index.indexdef).to.match(/UNIQUE INDEX .* \(company_id, lpad\(\(barcode\)::text, 14, '0'::text\)\) WHERE \(barcode IS NOT NULL\)/);
    const company = await buildCompany();
    await buildProduct(company, { barcode: REAL.ean13 });
    // The planner is told not to scan the table, so the plan shows whether the index can answer the lookup's shape.
    const plan = await system().db.sequelize.transaction(async (transaction) => {
      await system().db.sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
      const rows = await system().db.sequelize.query<{ 'QUERY PLAN': string }>(
        "EXPLAIN SELECT id FROM product_models p WHERE p.company_id = $1 AND p.barcode IS NOT NULL AND lpad(p.barcode, 14, '0') = $2",
        { bind: [company.id, `0${REAL.ean13}`], type: 'SELECT' as never, transaction },
      );
      return (rows as unknown as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).to.include('product_models_barcode_unique');
  });
});

describe('Product barcodes: import', () => {
  const csvImport = (company: TestCompany, csv: string) =>
    api('POST', '/api/v1/product-models/import/', { token: company.token, rawBody: csv, headers: { 'content-type': 'text/csv' } });

  it('imports barcodes from CSV and JSON', async () => {
    const company = await buildCompany();
    const csv = [
      'sku,name,profile,engine_type,barcode',
      `${unique('A')},Pencil,STANDARD,counter,${REAL.ean13}`,
      `${unique('B')},Eraser,STANDARD,counter,`,
    ].join('\n');
    const res = await csvImport(company, csv);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.products.map((p: { barcode: string | null }) => p.barcode)).to.deep.equal([REAL.ean13, null]);
    const json = await post('/api/v1/product-models/import/', { products: [newProduct(REAL.ean8)] }, { token: company.token });
    expect(json.status, JSON.stringify(json.body)).to.equal(201);
    expect(json.body.products[0].barcode).to.equal(REAL.ean8);
    expect(await storedBarcodes(company)).to.have.members([REAL.ean13, REAL.ean8, null]);
  });

  it('refuses the whole import naming each bad, repeated or taken barcode by row', async () => {
    const company = await buildCompany();
    await buildProduct(company, { barcode: REAL.ean13 });
    const csv = [
      'sku,name,profile,engine_type,barcode',
      `${unique('A')},Taken,STANDARD,counter,${REAL.ean13}`,
      `${unique('B')},Bad digit,STANDARD,counter,${wrongCheckDigit(REAL.ean8)}`,
      `${unique('C')},First,STANDARD,counter,${REAL.upcA}`,
      `${unique('D')},Same as row 3,STANDARD,counter,0${REAL.upcA}`,
      `${unique('E')},Fine,STANDARD,counter,${REAL.gtin14}`,
    ].join('\n');
    const res = await csvImport(company, csv);
    expectErrorShape(res, 400, 'import_failed');
    const rows = (res.body.details.rows as Array<{ row: number; field: string }>).map((r) => [r.row, r.field]);
    expect(rows).to.have.deep.members([
      [1, 'barcode'],
      [2, 'barcode'],
      [4, 'barcode'],
    ]);
    expect(await productCount(company.id)).to.equal(1);
  });
});

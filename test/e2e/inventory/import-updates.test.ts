/**
 * The product import with `update_existing=true` (docs/api/catalog-and-records.md, "Updating products from a
 * file"): a row whose SKU the company has updates that product with the fields the row names, under PATCH's
 * rules; the products export imports as it is, into the same company (nothing changes) or another one.
 */
import { expect } from 'chai';
import { api, get, patch } from '../../support/api';
import { expectErrorShape, expectImportFailed, expectValidationError } from '../../support/assertions';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct, unique } from '../../support/builders';
import { system } from '../../support/hooks';
import { holdLock } from '../../support/held-lock';
import { productCount } from '../../support/products';
import { count, query } from '../../support/sql';

const PATH = '/api/v1/product-models/import/';

const importCsv = (company: TestCompany, csv: string, queryString = '?update_existing=true', headers: Record<string, string> = {}) =>
  api('POST', `${PATH}${queryString}`, { token: company.token, rawBody: csv, headers: { 'content-type': 'text/csv', ...headers } });

const importJson = (company: TestCompany, products: unknown[], queryString = '?update_existing=true') =>
  api('POST', `${PATH}${queryString}`, { token: company.token, body: { products } });

/** The products export, as the file a person downloads (byte order mark included). */
async function exportedProducts(company: TestCompany): Promise<string> {
  const res = await fetch(`${system().url}/api/v1/export/products/`, { headers: { authorization: `Bearer ${company.token}` } });
  expect(res.status).to.equal(200);
  return Buffer.from(await res.arrayBuffer()).toString('utf8');
}

/** Every product of the company as the API shows it, by SKU. */
async function catalog(company: TestCompany): Promise<Map<string, Record<string, any>>> {
  const res = await get('/api/v1/product-models/?page_size=500', { token: company.token });
  expect(res.status).to.equal(200);
  return new Map((res.body.results as Array<Record<string, any>>).map((p) => [p.sku, p]));
}

const productAudits = (companyId: string) => count("SELECT count(*) FROM audit_log WHERE company_id = $1 AND resource_type = 'product_model'", [companyId]);

/** A small catalog with what a round trip must keep: awkward text, a barcode, limits, rules, a deactivated product. */
async function buildCatalog(company: TestCompany) {
  const bolt = await buildProduct(company, {
    name: 'Bolt, "hex" M8',
    barcode: '4006381333931',
    engine_config: {
      engine_type: 'counter',
      unit: 'box',
      min_stock: 5,
      max_stock: 100,
      monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: { min: 3 }, severity: 'CRITICAL' }],
    },
  });
  const formula = await buildProduct(company, { name: '=SUM(A1:A9)' });
  const rope = await buildProduct(company, { profile: 'DIMENSIONAL', name: 'Rope', engine_config: { engine_type: 'dimensional', unit: 'm', decimals: 3 } });
  const old = await buildProduct(company, { name: 'Old model' });
  expect((await patch(`/api/v1/product-models/${old.id}/`, { is_active: false, description: 'Two\nlines' }, { token: company.token })).status).to.equal(200);
  return { bolt, formula, rope, old };
}

describe('POST /api/v1/product-models/import/ with update_existing: the export imports as it is', () => {
  it('into the same company: every row is unchanged, nothing is written (no updated_at, no audit entry)', async () => {
    const company = await buildCompany();
    await buildCatalog(company);
    const before = await catalog(company);
    const audits = await productAudits(company.id);

    const res = await importCsv(company, await exportedProducts(company));
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(201);
    expect(Object.keys(res.body)).to.deep.equal(['imported', 'dry_run', 'created', 'updated', 'unchanged', 'products']);
    expect(res.body).to.include({ imported: 4, dry_run: false, created: 0, updated: 0, unchanged: 4 });
    expect(new Map(res.body.products.map((p: Record<string, any>) => [p.sku, p]))).to.deep.equal(before);
    expect(await catalog(company)).to.deep.equal(before);
    expect(await productAudits(company.id)).to.equal(audits);
  });

  it('into another company: the same products, deactivated, formulas and limits included (without update_existing too)', async () => {
    const source = await buildCompany();
    await buildCatalog(source);
    const file = await exportedProducts(source);
    const target = await buildCompany();
    const res = await importCsv(target, file, '');
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(201);
    expect(Object.keys(res.body)).to.deep.equal(['imported', 'dry_run', 'products']);

    const copied = await catalog(target);
    const fields = (p: Record<string, any>) => ({ ...p, id: undefined, created_at: undefined, updated_at: undefined, engine_config: undefined });
    for (const [sku, original] of await catalog(source)) {
      expect(fields(copied.get(sku)!), sku).to.deep.equal(fields(original));
      // The settings no column holds (monitoring rules) stay behind; the columns' settings come along.
      const { monitoring_rules: _rules, ...config } = original.engine_config;
      expect(copied.get(sku)!.engine_config, sku).to.deep.equal(config);
    }
    expect(
      [...copied.values()].find((p) => p.name === '=SUM(A1:A9)'),
      'the formula without its apostrophe',
    ).to.exist;
    expect([...copied.values()].find((p) => p.name === 'Old model')).to.include({ is_active: false, description: 'Two\nlines' });
  });
});

describe('POST /api/v1/product-models/import/ with update_existing: rows that update', () => {
  it('sets the columns the file has (an empty cell clears) and leaves the others, creating the new SKUs', async () => {
    const company = await buildCompany();
    const { bolt, rope, old } = await buildCatalog(company);
    const before = await catalog(company);
    const fresh = unique('NEW');
    const csv = [
      'sku,name,profile,engine_type,min_stock,max_stock,description',
      `${bolt.sku},Bolt M8 (box of 50),STANDARD,counter,20,,Zinc plated`,
      `${rope.sku},Rope,DIMENSIONAL,dimensional,,,`,
      `${fresh},Washer,STANDARD,counter,1,,`,
      `${old.sku},Old model,STANDARD,counter,,,Two\nlines`,
    ].join('\n');
    // The last row's description is two CSV lines: quote it.
    const res = await importCsv(company, csv.replace('Two\nlines', '"Two\nlines"'));
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(201);
    expect(res.body).to.include({ imported: 4, created: 1, updated: 1, unchanged: 2 });
    expect(res.body.products.map((p: Record<string, any>) => p.sku)).to.deep.equal([bolt.sku, rope.sku, fresh, old.sku]);

    const after = await catalog(company);
    const boltNow = after.get(bolt.sku)!;
    expect(boltNow).to.include({ name: 'Bolt M8 (box of 50)', description: 'Zinc plated', barcode: '4006381333931', unit: 'box', is_active: true });
    // min_stock set, max_stock cleared by its empty cell; unit and the monitoring rules kept (no column for them).
    expect(boltNow.engine_config).to.deep.equal({
      engine_type: 'counter',
      unit: 'box',
      decimals: 0,
      min_stock: 20,
      monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: { min: 3 }, severity: 'CRITICAL' }],
    });
    expect(new Date(boltNow.updated_at).getTime()).to.be.above(new Date(before.get(bolt.sku)!.updated_at).getTime());
    expect(after.get(rope.sku)).to.deep.equal(before.get(rope.sku));
    expect(after.get(old.sku)).to.deep.equal(before.get(old.sku));
    expect(after.get(fresh)).to.include({ name: 'Washer', is_active: true });
    expect(res.body.products[0]).to.deep.equal(boltNow);

    const [audit] = await query<{ changes: Record<string, unknown> }>(
      "SELECT changes FROM audit_log WHERE company_id = $1 AND resource_id = $2 AND action = 'update' ORDER BY created_at DESC LIMIT 1",
      [company.id, bolt.id],
    );
    expect(audit.changes).to.have.all.keys('name', 'description', 'engine_config');
  });

  it('takes a JSON row as PATCH takes its fields: engine_config whole, is_active, a barcode cleared with null', async () => {
    const company = await buildCompany();
    const { bolt } = await buildCatalog(company);
    const res = await importJson(company, [
      { sku: bolt.sku, name: 'Bolt', profile: 'STANDARD', engine_config: { engine_type: 'counter', unit: 'pcs' }, is_active: false, barcode: null },
    ]);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.include({ created: 0, updated: 1, unchanged: 0 });
    const now = (await catalog(company)).get(bolt.sku)!;
    expect(now).to.include({ name: 'Bolt', is_active: false, barcode: null, description: null, unit: 'pcs' });
    expect(now.engine_config).to.deep.equal({ engine_type: 'counter', unit: 'pcs', decimals: 0 });
  });

  it('changes the profile of a product nothing was booked on, and checks the engine config against the new one', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const res = await importCsv(company, `sku,name,profile,engine_type,unit\n${product.sku},Milk,BATCH,batch,l\n`);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect((await catalog(company)).get(product.sku)).to.include({ profile: 'BATCH', unit: 'l', engine_type: 'batch' });

    expectImportFailed(await importCsv(company, `sku,name,profile,engine_type\n${product.sku},Milk,BATCH,counter\n`), [[1, 'engine_type']]);
  });

  it("refuses PATCH's changes for a product with stock movements (profile, fewer decimals), naming the rows; nothing is written", async () => {
    const company = await buildCompany();
    const location = await buildLocation(company);
    const booked = await buildProduct(company);
    const rope = await buildProduct(company, { profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm', decimals: 3 } });
    await addStock(company, booked.id, location.id, 5);
    await addStock(company, rope.id, location.id, 1.125);
    const fresh = unique('NEW');
    const before = await catalog(company);
    const csv = [
      'sku,name,profile,engine_type,unit,decimals',
      `${booked.sku},Now batched,BATCH,batch,,`,
      `${rope.sku},Rope,DIMENSIONAL,dimensional,m,1`,
      `${fresh},New,STANDARD,counter,,`,
    ].join('\n');
    const rows = expectImportFailed(await importCsv(company, csv), [
      [1, 'profile'],
      [2, 'decimals'],
    ]);
    expect(rows[0].message).to.equal('is STANDARD and cannot change once stock has been booked');
    expect(rows[1].message).to.equal('must be at least 3 once stock has been booked');
    expect(await catalog(company)).to.deep.equal(before);

    // JSON names the field as it sends it; more decimals are allowed.
    expectImportFailed(
      await importJson(company, [
        { sku: rope.sku, name: 'Rope', profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm', decimals: 2 } },
      ]),
      [[1, 'engine_config.decimals']],
    );
    const grown = await importCsv(company, `sku,name,profile,engine_type,decimals\n${rope.sku},Rope,DIMENSIONAL,dimensional,4\n`);
    expect(grown.status, JSON.stringify(grown.body)).to.equal(201);
    expect((await catalog(company)).get(rope.sku)).to.include({ decimals: 4 });
  });

  it("keeps a product's own barcode, and refuses a barcode another product has", async () => {
    const company = await buildCompany();
    const { bolt, rope } = await buildCatalog(company);
    const own = await importCsv(company, `sku,name,profile,engine_type,barcode\n${bolt.sku},Bolt,STANDARD,counter,04006381333931\n`);
    expect(own.status, JSON.stringify(own.body)).to.equal(201);
    const taken = await importCsv(company, `sku,name,profile,engine_type,unit,barcode\n${rope.sku},Rope,DIMENSIONAL,dimensional,m,4006381333931\n`);
    expectImportFailed(taken, [[1, 'barcode']]);
  });

  it('checks a dry run the same way and writes nothing, answering what it would do', async () => {
    const company = await buildCompany();
    const { bolt, rope } = await buildCatalog(company);
    const before = await catalog(company);
    const csv = `sku,name,profile,engine_type,unit\n${bolt.sku},Renamed,STANDARD,counter,box\n${rope.sku},Rope,DIMENSIONAL,dimensional,m\n${unique('NEW')},New,STANDARD,counter,\n`;
    const res = await importCsv(company, csv, '?update_existing=true&dry_run=true');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ imported: 0, would_import: 3, dry_run: true, would_create: 1, would_update: 1, unchanged: 1 });
    expect(await catalog(company)).to.deep.equal(before);
  });

  it('still refuses a SKU the company has without update_existing', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    expectImportFailed(await importCsv(company, `sku,name,profile,engine_type\n${product.sku},Renamed,STANDARD,counter\n`, ''), [[1, 'sku']]);
    expectImportFailed(await importCsv(company, `sku,name,profile,engine_type\n${product.sku},Renamed,STANDARD,counter\n`, '?update_existing=false'), [
      [1, 'sku'],
    ]);
    expect((await catalog(company)).get(product.sku)!.name).to.equal(product.name);
  });

  it("updates only the caller's products: another company's SKU is created anew, and theirs is left alone", async () => {
    const other = await buildCompany();
    const theirs = await buildProduct(other, { name: 'Theirs' });
    const company = await buildCompany();
    const res = await importCsv(company, `sku,name,profile,engine_type\n${theirs.sku},Mine,STANDARD,counter\n`);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.include({ created: 1, updated: 0 });
    expect(res.body.products[0].id).to.not.equal(theirs.id);
    expect((await catalog(other)).get(theirs.sku)).to.include({ name: 'Theirs', id: theirs.id });
  });

  it('answers 400 naming update_existing or is_active for values that are not booleans, changing nothing', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const csv = `sku,name,profile,engine_type,is_active\n${product.sku},Renamed,STANDARD,counter,yes\n`;
    expectValidationError(await importCsv(company, csv, '?update_existing=maybe'), 'update_existing');
    const rows = expectImportFailed(await importCsv(company, csv), [[1, 'is_active']]);
    expect(rows[0].message).to.equal("must be true or false, not 'yes'");
    expectImportFailed(
      await importJson(company, [{ sku: product.sku, name: 'x', profile: 'STANDARD', engine_config: { engine_type: 'counter' }, is_active: 'no' }]),
      [[1, 'is_active']],
    );
    expect((await catalog(company)).get(product.sku)!.name).to.equal(product.name);
    // A spreadsheet program's TRUE and FALSE are booleans.
    const upper = await importCsv(company, `sku,name,profile,engine_type,is_active\n${product.sku},Renamed,STANDARD,counter,FALSE\n`);
    expect(upper.status, JSON.stringify(upper.body)).to.equal(201);
    expect((await catalog(company)).get(product.sku)).to.include({ name: 'Renamed', is_active: false });
  });
});

describe('POST /api/v1/product-models/import/ with update_existing: retries and concurrency', () => {
  it('replays a keyed update, and refuses the key for the same file sent without update_existing (409)', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const csv = `sku,name,profile,engine_type\n${product.sku},Renamed once,STANDARD,counter\n`;
    const key = { 'idempotency-key': unique('key') };
    const first = await importCsv(company, csv, '?update_existing=true', key);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const again = await importCsv(company, csv, '?update_existing=true', key);
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expectErrorShape(await importCsv(company, csv, '', key), 409, 'idempotency_key_reused');
    expect(await count("SELECT count(*) FROM audit_log WHERE resource_id = $1 AND action = 'update'", [product.id])).to.equal(1);
  });

  it('lets two imports updating the same products in opposite orders both through, one after the other', async () => {
    const company = await buildCompany();
    const [a, b, c] = [await buildProduct(company), await buildProduct(company), await buildProduct(company)];
    const file = (name: string, products: Array<{ sku: string }>) =>
      ['sku,name,profile,engine_type', ...products.map((p) => `${p.sku},${name},STANDARD,counter`)].join('\n');
    const answers = await Promise.all([importCsv(company, file('First', [a, b, c])), importCsv(company, file('Second', [c, b, a]))]);
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const names = [...(await catalog(company)).values()].map((p) => p.name);
    // Whichever went second wrote every product: never a mix of the two files.
    expect(new Set(names).size).to.equal(1);
  });

  it('updates a SKU another request created while it waited, instead of failing (and refuses it without update_existing)', async () => {
    const company = await buildCompany();
    for (const [queryString, expected] of [
      ['?update_existing=true', 201],
      ['', 400],
    ] as const) {
      const sku = unique('RACE');
      // The other request: a product with this SKU inserted and not yet committed, so the import's insert waits on it.
      const other = await holdLock(
        `INSERT INTO product_models (id, company_id, sku, name, profile, engine_config, unit, decimals, is_active, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, $2, 'Made meanwhile', 'STANDARD', '{"engine_type":"counter","unit":"pcs","decimals":0}', 'pcs', 0, true, now(), now())`,
        [company.id, sku],
      );
      const answer = importCsv(company, `sku,name,profile,engine_type\n${sku},From the file,STANDARD,counter\n`, queryString);
      await other.waitForWaiters(1);
      await other.release();
      const res = await answer;
      expect(res.status, JSON.stringify(res.body)).to.equal(expected);
      if (expected === 201) expect(res.body).to.include({ created: 0, updated: 1 });
      else expectImportFailed(res, [[1, 'sku']]);
      expect(await count('SELECT count(*) FROM product_models WHERE company_id = $1 AND sku = $2', [company.id, sku])).to.equal(1);
      const [row] = await query<{ name: string }>('SELECT name FROM product_models WHERE company_id = $1 AND sku = $2', [company.id, sku]);
      expect(row.name).to.equal(expected === 201 ? 'From the file' : 'Made meanwhile');
    }
    expect(await productCount(company.id)).to.equal(2);
  });
});

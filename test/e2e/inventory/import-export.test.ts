/**
 * Bulk import of product models (JSON and CSV, all or nothing, dry runs) and the streamed company export,
 * through the gateway against the real database.
 */
import { expect } from 'chai';
import type { Identity } from '@pi/common';
import { EXPORT_CHUNK, ExportAbortedError, exportCompanyOf, writeCompanyExport } from '@pi/inventory/dist/src/commands/export';
import { api, get, post } from '../../support/api';
import { expectErrorShape, expectImportFailed, expectValidationError } from '../../support/assertions';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct, unique } from '../../support/builders';
import { system } from '../../support/hooks';
import { productCount } from '../../support/products';
import { count, query } from '../../support/sql';
import { idleCursorSessions, pausedSamples, stalledReader } from '../../support/stalled-reader';

const importJson = (company: TestCompany, body: unknown, query = '') => post(`/api/v1/product-models/import/${query}`, body, { token: company.token });
const importCsv = (company: TestCompany, csv: string, query = '') =>
  api('POST', `/api/v1/product-models/import/${query}`, { token: company.token, rawBody: csv, headers: { 'content-type': 'text/csv' } });

const standard = (sku = unique('IMP')) => ({ sku, name: `Product ${sku}`, profile: 'STANDARD', engine_config: { engine_type: 'counter' } });

describe('POST /api/v1/product-models/import/ with JSON', () => {
  it('imports every row (201) and the products are readable afterwards', async () => {
    const company = await buildCompany();
    const rows = [
      { ...standard(), description: 'first' },
      { sku: unique('IMP'), name: 'Serial thing', profile: 'SERIALIZED', engine_config: { engine_type: 'serialized' } },
      { sku: unique('IMP'), name: 'Milk', profile: 'BATCH', engine_config: { engine_type: 'batch', unit: 'l', min_stock: 10 } },
      { sku: unique('IMP'), name: 'Rope', profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm' } },
    ];
    const res = await importJson(company, { products: rows });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.have.all.keys('imported', 'dry_run', 'products');
    expect(res.body).to.include({ imported: 4, dry_run: false });
    expect(res.body.products.map((p: { sku: string }) => p.sku)).to.deep.equal(rows.map((r) => r.sku));
    expect(res.body.products[2]).to.include({ profile: 'BATCH', unit: 'l', decimals: 0, is_active: true });
    expect(res.body.products[3]).to.include({ profile: 'DIMENSIONAL', unit: 'm', decimals: 2 });
    expect(res.body.products[0].description).to.equal('first');

    for (const product of res.body.products) {
      const read = await get(`/api/v1/product-models/${product.id}/`, { token: company.token });
      expect(read.status).to.equal(200);
      expect(read.body).to.deep.equal(product);
    }
    expect(await productCount(company.id)).to.equal(4);
  });

  it('lets a company import SKUs that another company already uses', async () => {
    const other = await buildCompany();
    const company = await buildCompany();
    const taken = await buildProduct(other);
    const res = await importJson(company, { products: [standard(taken.sku)] });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.imported).to.equal(1);
  });

  it('imports nothing when one row has a bad profile and another a bad engine config, naming both rows and fields', async () => {
    const company = await buildCompany();
    const good = standard();
    const res = await importJson(company, {
      products: [good, { ...standard(), engine_config: { engine_type: 'counter', decimals: 9 } }, { ...standard(), profile: 'NOPE' }, standard()],
    });
    const rows = expectImportFailed(res, [
      [2, 'engine_config.decimals'],
      [3, 'profile'],
    ]);
    expect(rows.map((r) => r.row)).to.deep.equal([2, 3]);
    expect(await productCount(company.id)).to.equal(0);
    expect(await count('SELECT count(*) FROM product_models WHERE sku = $1', [good.sku])).to.equal(0);
  });

  it('lists every problem of every row, including field rules, unknown fields and engine/profile mismatches', async () => {
    const company = await buildCompany();
    const res = await importJson(company, {
      products: [
        { sku: '', name: 'x'.repeat(201), profile: 'STANDARD', engine_config: { engine_type: 'counter' } },
        { ...standard(), engine_config: { engine_type: 'batch', min_stock: -1 } },
        { ...standard(), colour: 'blue' },
        'not a product',
        { ...standard(), engine_config: 'counter' },
        { name: 'no sku', profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional' } },
      ],
    });
    expectImportFailed(res, [
      [1, 'sku'],
      [1, 'name'],
      [2, 'engine_config.engine_type'],
      [2, 'engine_config.min_stock'],
      [3, 'colour'],
      [4, 'row'],
      [5, 'engine_config'],
      [6, 'sku'],
      [6, 'engine_config.unit'],
    ]);
    expect(await productCount(company.id)).to.equal(0);
  });

  it('refuses SKUs repeated within the file, naming each repeat and the row it repeats', async () => {
    const company = await buildCompany();
    const sku = unique('DUP');
    const res = await importJson(company, { products: [standard(sku), standard(), standard(sku), standard(`  ${sku}  `)] });
    const rows = expectImportFailed(res, [
      [3, 'sku'],
      [4, 'sku'],
    ]);
    expect(rows[0].message).to.include('row 1');
    expect(await productCount(company.id)).to.equal(0);
  });

  it('refuses SKUs the company already has, and leaves the existing product unchanged', async () => {
    const company = await buildCompany();
    const existing = await buildProduct(company, { name: 'Original' });
    const res = await importJson(company, { products: [standard(), { ...standard(existing.sku), name: 'Overwrite?' }] });
    expectImportFailed(res, [[2, 'sku']]);
    expect(await productCount(company.id)).to.equal(1);
    expect((await get(`/api/v1/product-models/${existing.id}/`, { token: company.token })).body.name).to.equal('Original');
  });

  it('lets only one of two concurrent imports of the same SKUs through; the other names the taken rows and imports nothing', async () => {
    const company = await buildCompany();
    const rows = Array.from({ length: 50 }, () => standard());
    const [first, second] = await Promise.all([importJson(company, { products: rows }), importJson(company, { products: [standard(), ...rows] })]);
    const statuses = [first.status, second.status].sort();
    expect(statuses, JSON.stringify([first.body, second.body]).slice(0, 800)).to.deep.equal([201, 400]);
    const loser = first.status === 400 ? first : second;
    const winnerRows = first.status === 201 ? 50 : 51;
    expect(loser.body.code).to.equal('import_failed');
    const offset = loser === first ? 0 : 1;
    const expected: Array<[number, string]> = rows.map((_, i) => [i + 1 + offset, 'sku']);
    expectImportFailed(loser, expected);
    expect(await productCount(company.id)).to.equal(winnerRows);
  });

  it('answers each of four concurrent imports sharing SKUs in opposite orders: one imports, the others name the taken rows', async () => {
    const company = await buildCompany();
    const rows = Array.from({ length: 40 }, () => standard());
    const reversed = [...rows].reverse();
    const answers = await Promise.all([rows, reversed, rows, reversed].map((products) => importJson(company, { products })));
    expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body)).slice(0, 800)).to.deep.equal([201, 400, 400, 400]);
    for (const loser of answers.filter((a) => a.status === 400)) expect(loser.body.code).to.equal('import_failed');
    expect(await productCount(company.id)).to.equal(40);
  });

  it('checks everything on a dry run (200) and writes nothing', async () => {
    const company = await buildCompany();
    const res = await importJson(company, { products: [standard(), standard(), standard()] }, '?dry_run=true');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ imported: 0, would_import: 3, dry_run: true });
    expect(await productCount(company.id)).to.equal(0);

    const bad = await importJson(company, { products: [standard(), { ...standard(), profile: 'NOPE' }] }, '?dry_run=true');
    expectImportFailed(bad, [[2, 'profile']]);

    const real = await importJson(company, { products: [standard()] }, '?dry_run=false');
    expect(real.status).to.equal(201);
    expect(await productCount(company.id)).to.equal(1);
  });

  it('answers 400 validation_error for a document without a products list, an empty one, or more than 5000 rows', async () => {
    const company = await buildCompany();
    expectValidationError(await importJson(company, {}), 'products');
    expectValidationError(await importJson(company, { products: 'sku,name' }), 'products');
    expectValidationError(await importJson(company, { products: [] }), 'products');
    expectValidationError(await importJson(company, { products: [standard()], extra: true }), 'extra');
    const tooMany = Array.from({ length: 5001 }, (_, i) => ({ sku: `S${i}`, name: 'n', profile: 'STANDARD', engine_config: { engine_type: 'counter' } }));
    expectValidationError(await importJson(company, { products: tooMany }), 'products');
    expectValidationError(await importJson(company, { products: [standard()] }, '?dry_run=maybe'), 'dry_run');
    expect(await productCount(company.id)).to.equal(0);
  });
});

describe('POST /api/v1/product-models/import/ with CSV', () => {
  it('imports a CSV file, building each engine config from its columns; empty cells are absent values', async () => {
    const company = await buildCompany();
    const [a, b, c] = [unique('CSV'), unique('CSV'), unique('CSV')];
    const csv = [
      'sku,name,profile,engine_type,unit,decimals,min_stock,max_stock,description',
      `${a},Hex bolt,STANDARD,counter,,,5,100,"Zinc plated, M8"`,
      `${b},Copper wire,DIMENSIONAL,dimensional,m,3,,,`,
      `${c},Yoghurt,BATCH,batch,cup,,,,"She said ""fresh"""`,
    ].join('\n');
    const res = await importCsv(company, csv);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.imported).to.equal(3);
    const [bolt, wire, yoghurt] = res.body.products;
    expect(bolt).to.include({ sku: a, name: 'Hex bolt', profile: 'STANDARD', unit: 'pcs', decimals: 0, description: 'Zinc plated, M8' });
    expect(bolt.engine_config).to.deep.equal({ engine_type: 'counter', unit: 'pcs', decimals: 0, min_stock: 5, max_stock: 100 });
    expect(wire.engine_config).to.deep.equal({ engine_type: 'dimensional', unit: 'm', decimals: 3 });
    expect(wire.description).to.equal(null);
    expect(yoghurt).to.include({ unit: 'cup', description: 'She said "fresh"' });

    const listed = await get(`/api/v1/product-models/?search=${b}`, { token: company.token });
    expect(listed.body.results).to.have.length(1);
    expect(listed.body.results[0]).to.deep.equal(wire);
  });

  it('accepts a byte order mark, CRLF line ends, upper-case headers, columns in any order and only the required ones', async () => {
    const company = await buildCompany();
    const sku = unique('CSV');
    const res = await importCsv(company, `\ufeffNAME,SKU,Engine_Type,Profile\r\nWidget,${sku},serialized,SERIALIZED\r\n\r\n`);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.products[0]).to.include({ sku, name: 'Widget', profile: 'SERIALIZED', unit: 'pcs', decimals: 0 });
  });

  it('imports nothing when rows are bad, naming each row (header not counted) and column', async () => {
    const company = await buildCompany();
    const [a, b] = [unique('CSV'), unique('CSV')];
    const csv = [
      'sku,name,profile,engine_type,unit,decimals,min_stock,max_stock,description',
      `${a},Good,STANDARD,counter,,,,,`,
      `${b},Bad decimals,STANDARD,counter,,1.5,,,`,
      `${unique('CSV')},Bad profile,NOPE,counter,,,,,`,
      `${unique('CSV')},Not a number,STANDARD,counter,,,lots,,`,
      `${unique('CSV')},Short row,STANDARD`,
      `${unique('CSV')},Wrong unit,DIMENSIONAL,dimensional,pcs,,,,`,
      `${a},Repeat,STANDARD,counter,,,,,`,
      `${unique('CSV')},Min over max,STANDARD,counter,,,9,3,`,
    ].join('\n');
    const rows = expectImportFailed(await importCsv(company, csv), [
      [2, 'decimals'],
      [3, 'profile'],
      [4, 'min_stock'],
      [5, 'row'],
      [5, 'engine_type'],
      [6, 'unit'],
      [7, 'sku'],
      [8, 'max_stock'],
    ]);
    expect(rows.find((r) => r.row === 7)!.message).to.include('row 1');
    expect(await productCount(company.id)).to.equal(0);
  });

  it('refuses a CSV SKU the company already has, and reports the count on a dry run without writing', async () => {
    const company = await buildCompany();
    const existing = await buildProduct(company);
    const header = 'sku,name,profile,engine_type';
    expectImportFailed(await importCsv(company, `${header}\n${unique('CSV')},A,STANDARD,counter\n${existing.sku},B,STANDARD,counter\n`), [[2, 'sku']]);
    const dry = await importCsv(company, `${header}\n${unique('CSV')},A,STANDARD,counter\n${unique('CSV')},B,BATCH,batch\n`, '?dry_run=true');
    expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
    expect(dry.body).to.deep.equal({ imported: 0, would_import: 2, dry_run: true });
    expect(await productCount(company.id)).to.equal(1);
  });

  it('answers 400 validation_error for a bad header, naming each column, and imports nothing', async () => {
    const company = await buildCompany();
    const res = await importCsv(company, `sku,name,colour,engine_type\n${unique('CSV')},A,red,counter\n`);
    expectValidationError(res, 'header.colour', 'header.profile');
    const repeated = await importCsv(company, `sku,name,profile,engine_type,sku\n${unique('CSV')},A,STANDARD,counter,x\n`);
    expectValidationError(repeated, 'header.sku');
    expect(await productCount(company.id)).to.equal(0);
  });

  it('answers 400 validation_error for an empty file, a header alone, or malformed CSV', async () => {
    const company = await buildCompany();
    expectValidationError(await importCsv(company, ''), 'body');
    expectValidationError(await importCsv(company, 'sku,name,profile,engine_type\n'), 'body');
    expectValidationError(await importCsv(company, `sku,name,profile,engine_type\n${unique('CSV')},"unclosed,STANDARD,counter\n`), 'body');
    expect(await productCount(company.id)).to.equal(0);
  });

  it('imports 5000 CSV rows in one file of more than 1 MB (the JSON body limit), and refuses 5001 rows or a file over 5 MB', async () => {
    const company = await buildCompany();
    const prefix = unique('BIG');
    const line = (i: number) => `${prefix}-${i},Product ${i},STANDARD,counter,,,,,"${'d'.repeat(300)}"`;
    const header = 'sku,name,profile,engine_type,unit,decimals,min_stock,max_stock,description';
    const csv = [header, ...Array.from({ length: 5000 }, (_, i) => line(i))].join('\n');
    expect(csv.length).to.be.above(1024 * 1024);
    const res = await importCsv(company, csv);
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(201);
    expect(res.body.imported).to.equal(5000);
    expect(await productCount(company.id)).to.equal(5000);

    const other = await buildCompany();
    expectValidationError(await importCsv(other, `${csv}\n${line(5000)}`), 'body');
    const huge = [header, ...Array.from({ length: 4000 }, (_, i) => `${prefix}-${i},P,STANDARD,counter,,,,,"${'d'.repeat(1400)}"`)].join('\n');
    expect(huge.length).to.be.above(5 * 1024 * 1024);
    expectErrorShape(await importCsv(other, huge), 413, 'payload_too_large');
    expect(await productCount(other.id)).to.equal(0);
  });

  it('answers 415 unsupported_media_type in the error shape for another content type, and imports nothing', async () => {
    const company = await buildCompany();
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const res = await api('POST', '/api/v1/product-models/import/', {
        token: company.token,
        rawBody: `sku,name,profile,engine_type\n${unique('X')},A,STANDARD,counter\n`,
        headers: { 'content-type': type },
      });
      expectErrorShape(res, 415, 'unsupported_media_type');
      expect(res.body.details).to.have.property('content_type');
    }
    const untyped = await api('POST', '/api/v1/product-models/import/', { token: company.token });
    expectErrorShape(untyped, 415, 'unsupported_media_type');
    expect(untyped.body.details.content_type).to.match(/required/);
    expect(await productCount(company.id)).to.equal(0);
  });

  it('answers 401 without a bearer token', async () => {
    const res = await importCsv({ token: '' } as TestCompany, 'sku,name,profile,engine_type\n');
    expectErrorShape(res, 401, 'authentication_failed');
  });
});

interface ExportDocument {
  company: { id: string; name: string };
  exported_at: string;
  product_models: Array<Record<string, any>>;
  locations: Array<Record<string, any>>;
  batches: Array<Record<string, any>>;
  physical_items: Array<Record<string, any>>;
  work_orders: Array<Record<string, any>>;
  stock_balances: Array<Record<string, any>>;
  stock_movements: Array<Record<string, any>>;
}

const SECTIONS = ['product_models', 'locations', 'batches', 'physical_items', 'work_orders', 'stock_balances', 'stock_movements'] as const;

async function exportOf(company: TestCompany): Promise<{ res: Response; text: string; doc: ExportDocument }> {
  const res = await fetch(`${system().url}/api/v1/export/`, { headers: { authorization: `Bearer ${company.token}` } });
  const text = await res.text();
  expect(res.status, text.slice(0, 500)).to.equal(200);
  return { res, text, doc: JSON.parse(text) as ExportDocument };
}

const ids = (rows: Array<Record<string, any>>) => rows.map((r) => String(r.id)).sort();
const idsIn = async (table: string, companyId: string) =>
  (await query<{ id: string }>(`SELECT id FROM ${table} WHERE company_id = $1`, [companyId])).map((r) => r.id).sort();

/** A company with something in every table: products of three profiles, stock, a batch, items and a work order. */
async function stockedCompany() {
  const company = await buildCompany();
  const shelf = await buildLocation(company);
  const standardProduct = await buildProduct(company);
  const batchProduct = await buildProduct(company, { profile: 'BATCH' });
  const serialProduct = await buildProduct(company, { profile: 'SERIALIZED' });
  await addStock(company, standardProduct.id, shelf.id, 5);
  await addStock(company, batchProduct.id, shelf.id, 2, { batch: { code: unique('LOT'), expiration_date: '2031-05-01' } });
  await addStock(company, serialProduct.id, shelf.id, 2, { serial_numbers: [unique('SN'), unique('SN')] });
  await system().db.sequelize.query(
    "INSERT INTO work_orders (company_id, number, title, product_id, quantity, due_date) VALUES ($1, $2, 'Assemble', $3, 2.5, '2030-01-31')",
    {
      bind: [company.id, unique('WO'), standardProduct.id],
    },
  );
  return { company, shelf, standardProduct, batchProduct, serialProduct };
}

describe('GET /api/v1/export/', () => {
  it("exports exactly the company's records, as one JSON document downloaded as a file", async () => {
    const { company, shelf, standardProduct, batchProduct } = await stockedCompany();
    const other = await stockedCompany();
    const { res, text, doc } = await exportOf(company);

    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    const disposition = res.headers.get('content-disposition') ?? '';
    const today = new Date().toISOString().slice(0, 10);
    expect(disposition).to.match(new RegExp(`^attachment; filename="export-[a-z0-9-]+-(${today}|\\d{4}-\\d{2}-\\d{2})\\.json"$`));
    expect(disposition).to.include(company.name.toLowerCase().replace(/_/g, '-'));

    expect(Object.keys(doc)).to.deep.equal(['company', 'exported_at', ...SECTIONS]);
    expect(doc.company).to.deep.equal({ id: company.id, name: company.name });
    expect(new Date(doc.exported_at).toISOString()).to.equal(doc.exported_at);

    expect(ids(doc.product_models)).to.deep.equal(await idsIn('product_models', company.id));
    expect(ids(doc.locations)).to.deep.equal(await idsIn('locations', company.id));
    expect(ids(doc.batches)).to.deep.equal(await idsIn('batches', company.id));
    expect(ids(doc.physical_items)).to.deep.equal(await idsIn('physical_items', company.id));
    expect(ids(doc.work_orders)).to.deep.equal(await idsIn('work_orders', company.id));
    expect(ids(doc.stock_movements)).to.deep.equal(await idsIn('stock_movements', company.id));
    expect(doc.product_models).to.have.length(3);
    expect(doc.locations).to.have.length(3); // Inbound, Outbound and the shelf
    expect(doc.batches).to.have.length(1);
    expect(doc.physical_items).to.have.length(2);
    expect(doc.work_orders).to.have.length(1);
    expect(doc.stock_movements.length).to.be.at.least(3);
    expect(await count('SELECT count(*) FROM stock_balances WHERE company_id = $1', [company.id])).to.equal(doc.stock_balances.length);

    // Nothing of the other company, anywhere in the document.
    const otherIds = [
      other.company.id,
      ...(await idsIn('product_models', other.company.id)),
      ...(await idsIn('locations', other.company.id)),
      ...(await idsIn('batches', other.company.id)),
      ...(await idsIn('physical_items', other.company.id)),
      ...(await idsIn('work_orders', other.company.id)),
      ...(await idsIn('stock_movements', other.company.id)),
    ];
    for (const id of otherIds) expect(text).not.to.include(id);
    expect(text).not.to.include(other.company.name);

    // Presenters: products and locations as the API shows them.
    const product = doc.product_models.find((p) => p.id === standardProduct.id)!;
    expect(product).to.deep.equal((await get(`/api/v1/product-models/${standardProduct.id}/`, { token: company.token })).body);
    const location = doc.locations.find((l) => l.id === shelf.id)!;
    expect(location).to.deep.equal((await get(`/api/v1/locations/${shelf.id}/`, { token: company.token })).body);

    // Stock: balances and movements with JSON-number quantities.
    const balance = doc.stock_balances.find((b) => b.product_id === standardProduct.id && b.location_id === shelf.id)!;
    expect(balance).to.have.all.keys('product_id', 'location_id', 'batch_id', 'quantity', 'updated_at');
    expect(balance).to.include({ quantity: 5, batch_id: null });
    const movement = doc.stock_movements.find((m) => m.product_id === standardProduct.id)!;
    expect(movement).to.include({ kind: 'ADD', quantity: 5, to_location_id: shelf.id, reason: 'test stock', actor_kind: 'api_key' });
    expect(movement.seq).to.be.a('number');
    const seqs = doc.stock_movements.map((m) => m.seq);
    expect(seqs).to.deep.equal([...seqs].sort((x, y) => x - y));

    const batch = doc.batches[0];
    expect(batch).to.include({ product_id: batchProduct.id, expiration_date: '2031-05-01' });
    expect(doc.stock_balances.find((b) => b.batch_id === batch.id)).to.include({ quantity: 2, product_id: batchProduct.id });
    expect(doc.physical_items[0]).to.include({ location_id: shelf.id, is_active: true });
    expect(doc.work_orders[0]).to.include({ title: 'Assemble', status: 'OPEN', quantity: 2.5, due_date: '2030-01-31', product_id: standardProduct.id });
  });

  it('exports a new company as its two system locations and empty lists, named after the company without accents or quotes', async () => {
    const company = await buildCompany({ name: `Ünïcode & "Quotes" ${unique('Co')}` });
    const res = await fetch(`${system().url}/api/v1/export/`, { headers: { authorization: `Bearer ${company.token}` } });
    expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="export-unicode-quotes-co-[0-9a-f]{10}-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(JSON.parse(await res.text()).company.name).to.equal(company.name);
    const { doc } = await exportOf(company);
    expect(doc.locations.map((l) => l.name).sort()).to.deep.equal(['Inbound', 'Outbound']);
    expect(doc.locations.every((l) => l.is_system && l.type === 'VIRTUAL')).to.equal(true);
    for (const key of SECTIONS.filter((s) => s !== 'locations')) expect(doc[key], key).to.deep.equal([]);
  });

  it('streams a catalog larger than one read chunk, every product once, and changes nothing', async () => {
    const company = await buildCompany();
    const products = Array.from({ length: 2300 }, (_, i) => ({
      sku: `BULK-${String(i).padStart(5, '0')}`,
      name: `Bulk ${i}`,
      profile: 'STANDARD',
      engine_config: { engine_type: 'counter' },
    }));
    const imported = await importJson(company, { products });
    expect(imported.status, JSON.stringify(imported.body).slice(0, 500)).to.equal(201);
    const before = await query('SELECT id, updated_at FROM product_models WHERE company_id = $1 ORDER BY id', [company.id]);

    const { doc } = await exportOf(company);
    expect(doc.product_models).to.have.length(2300);
    expect(new Set(doc.product_models.map((p) => p.sku)).size).to.equal(2300);
    expect(ids(doc.product_models)).to.deep.equal(await idsIn('product_models', company.id));
    expect(await query('SELECT id, updated_at FROM product_models WHERE company_id = $1 ORDER BY id', [company.id])).to.deep.equal(before);
  });

  it('stops reading and ends its transaction when the destination goes away midway (backpressure, then close)', async () => {
    const company = await buildCompany();
    const products = Array.from({ length: 1500 }, (_, i) => ({
      sku: `GONE-${i}`,
      name: `Gone ${i}`,
      profile: 'STANDARD',
      engine_config: { engine_type: 'counter' },
    }));
    expect((await importJson(company, { products })).status).to.equal(201);

    const { stream: stuck, written } = stalledReader();
    const ctx = { sequelize: system().db.sequelize, config: { PUBLIC_BASE_URL: 'http://127.0.0.1' } };
    const running = writeCompanyExport(ctx, await exportCompanyOf(ctx, { companyId: company.id } as Identity), stuck);
    const openExports = () => idleCursorSessions('export_');
    const steady = await pausedSamples('export_');
    if (steady < 5) {
      // Never leave the export holding its connection (the run's teardown would wait on it): end it, then say what was seen.
      const sessions = await query('SELECT state, left(query, 120) AS query FROM pg_stat_activity WHERE datname = current_database()');
      stuck.destroy();
      await running.catch(() => undefined);
      expect.fail(`the export should wait for the destination inside its transaction; sessions: ${JSON.stringify(sessions)}, written: ${written()}`);
    }

    stuck.destroy();
    const outcome = await running.then(
      () => 'finished',
      (err: unknown) => err,
    );
    expect(outcome).to.be.instanceOf(ExportAbortedError);
    expect(await openExports()).to.equal(0);
    expect(written()).to.be.below(EXPORT_CHUNK * 400);
  });

  it('answers 400 naming an unknown query parameter, and 401 without a bearer token', async () => {
    const company = await buildCompany();
    expectValidationError(await get(`/api/v1/export/?company_id=${company.id}`, { token: company.token }), 'company_id');
    expectErrorShape(await get('/api/v1/export/'), 401, 'authentication_failed');
  });
});

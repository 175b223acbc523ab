/**
 * Spreadsheets in and out (docs/api/spreadsheets.md): the CSV exports of products, stock levels and movements,
 * parsed back with a parser of the test's own and compared with the API's lists; the CSV imports of locations
 * and of opening stock (booked through the ledger), with dry runs and per-row problems. Through the gateway
 * against the real database.
 */
import { expect } from 'chai';
import type { Identity } from '@pi/common';
import { findStockDifferences } from '@pi/inventory/dist/src/cli/verify-stock';
import { EXPORT_CHUNK, ExportAbortedError } from '@pi/inventory/dist/src/commands/export';
import { movementSheet, writeSheet } from '@pi/inventory/dist/src/commands/spreadsheet-export';
import { api, get, post } from '../../support/api';
import {
  expectAccessDenied,
  expectErrorShape,
  expectImportFailed,
  expectPermissionDenied,
  expectRateLimited,
  expectValidationError,
} from '../../support/assertions';
import { addStock, buildCompany, buildLocation, buildProduct, buildUser, keySpentOnBooking, unique } from '../../support/builders';
import { system } from '../../support/hooks';
import { balanceOf, movementCount } from '../../support/stock';
import { count, query } from '../../support/sql';
import { idleCursorSessions, pausedSamples, stalledReader } from '../../support/stalled-reader';

/** RFC 4180, written here so that the export is checked by something other than the service's own code. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  expect(quoted, 'an unterminated quoted cell').to.equal(false);
  expect(cell === '' && row.length === 0, 'the file ends with CRLF').to.equal(true);
  return rows;
}

type Records = Array<Record<string, string>>;

interface Sheet {
  res: Response;
  text: string;
  columns: string[];
  rows: Records;
}

async function exportSheet(token: string, path: string): Promise<Sheet> {
  const res = await fetch(`${system().url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(res.status, bytes.toString('utf8').slice(0, 500)).to.equal(200);
  expect([...bytes.subarray(0, 3)], 'a UTF-8 byte order mark').to.deep.equal([0xef, 0xbb, 0xbf]);
  const text = bytes.subarray(3).toString('utf8');
  const [columns, ...data] = parseCsv(text);
  for (const r of data) expect(r.length, JSON.stringify(r)).to.equal(columns.length);
  return { res, text, columns, rows: data.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]]))) };
}

const importCsv = (token: string, path: string, csv: string, dryRun = false) =>
  api('POST', `${path}${dryRun ? '?dry_run=true' : ''}`, { token, rawBody: csv, headers: { 'content-type': 'text/csv' } });

const auditCount = (companyId: string, type: string) => count('SELECT count(*) FROM audit_log WHERE company_id = $1 AND resource_type = $2', [companyId, type]);
const locationCount = (companyId: string) => count('SELECT count(*) FROM locations WHERE company_id = $1', [companyId]);
const ledgerSnapshot = (companyId: string) =>
  Promise.all([
    query('SELECT id FROM stock_movements WHERE company_id = $1 ORDER BY seq', [companyId]),
    query('SELECT product_id, location_id, batch_id, quantity FROM stock_balances WHERE company_id = $1 ORDER BY product_id, location_id, batch_id', [
      companyId,
    ]),
    query('SELECT id FROM batches WHERE company_id = $1 ORDER BY id', [companyId]),
  ]);

/** Names that need quoting or neutralising in a spreadsheet. */
const AWKWARD = ['Bolts, large', 'The "best" nut', 'Two\nlines', '=HYPERLINK("http://x")', '-5 degrees', '@SUM(A1)', 'Ünïcødé ✓'];

describe('GET /api/v1/export/products/', () => {
  it('downloads the catalog as CSV that parses back to the list, quoting commas, quotes and newlines and neutralising formulas', async () => {
    const company = await buildCompany();
    for (const name of AWKWARD) await buildProduct(company, { name });
    await buildProduct(company, { profile: 'DIMENSIONAL', name: 'Rope', engine_config: { engine_type: 'dimensional', unit: 'm', min_stock: 2.5 } });
    const { res, columns, rows } = await exportSheet(company.token, '/api/v1/export/products/');
    expect(res.headers.get('content-type')).to.match(/^text\/csv; charset=utf-8/);
    expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="products-[a-z0-9-]+-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(columns.slice(0, 3)).to.deep.equal(['sku', 'name', 'profile']);

    const list = (await get('/api/v1/product-models/?page_size=500', { token: company.token })).body.results as Array<Record<string, any>>;
    expect(rows.map((r) => r.product_id)).to.deep.equal(list.map((p) => p.id));
    expect(rows.map((r) => r.sku)).to.deep.equal(list.map((p) => p.sku));
    const shown = (name: string) => (/^[=+\-@]/.test(name) ? `'${name}` : name);
    expect(rows.map((r) => r.name)).to.deep.equal(list.map((p) => shown(p.name)));
    expect(rows.find((r) => r.name === 'Two\nlines')).to.exist;
    expect(rows.find((r) => r.name === '\'=HYPERLINK("http://x")')).to.exist;
    expect(rows.find((r) => r.name === 'Rope')).to.include({ profile: 'DIMENSIONAL', unit: 'm', decimals: '2', min_stock: '2.5', is_active: 'true' });
  });

  it('filters and sorts like the list, and answers 400 naming a bad filter', async () => {
    const company = await buildCompany();
    await buildProduct(company, { name: 'Alpha', profile: 'BATCH' });
    await buildProduct(company, { name: 'Beta' });
    await buildProduct(company, { name: 'Gamma', profile: 'BATCH' });
    const { rows } = await exportSheet(company.token, '/api/v1/export/products/?profile=BATCH&ordering=-name');
    expect(rows.map((r) => r.name)).to.deep.equal(['Gamma', 'Alpha']);
    expectValidationError(await get('/api/v1/export/products/?profile=NOPE', { token: company.token }), 'profile');
    expectValidationError(await get('/api/v1/export/products/?page=2', { token: company.token }), 'page');
    expectErrorShape(await get('/api/v1/export/products/'), 401, 'authentication_failed');
  });
});

describe('GET /api/v1/export/stock/', () => {
  it('downloads a row per product, location and batch that adds up to the stock list, with names', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company, 'Shelf, "north"');
    const van = await buildLocation(company, 'Van');
    const bolt = await buildProduct(company, { name: 'Bolt' });
    const milk = await buildProduct(company, { profile: 'BATCH', name: 'Milk' });
    await addStock(company, bolt.id, shelf.id, 5);
    await addStock(company, bolt.id, van.id, 2);
    await addStock(company, milk.id, shelf.id, 3, { batch: { code: 'LOT-1', expiration_date: '2031-01-31' } });
    await addStock(company, milk.id, shelf.id, 4, { batch: { code: 'LOT-2' } });
    const { res, rows } = await exportSheet(company.token, '/api/v1/export/stock/');
    expect(res.headers.get('content-disposition')).to.match(/filename="stock-.+\.csv"$/);
    expect(rows.map((r) => [r.product_name, r.location, r.batch_code, r.expiration_date, r.quantity])).to.deep.equal([
      ['Bolt', 'Shelf, "north"', '', '', '5'],
      ['Bolt', 'Van', '', '', '2'],
      ['Milk', 'Shelf, "north"', 'LOT-1', '2031-01-31', '3'],
      ['Milk', 'Shelf, "north"', 'LOT-2', '', '4'],
    ]);
    const list = (await get('/api/v1/stock/?page_size=500', { token: company.token })).body.results as Array<Record<string, any>>;
    for (const level of list) {
      for (const at of level.locations) {
        const sum = rows.filter((r) => r.product_id === level.product_id && r.location_id === at.location_id).reduce((s, r) => s + Number(r.quantity), 0);
        expect(sum, `${level.sku} at ${at.location_name}`).to.equal(at.quantity);
        expect(rows.find((r) => r.product_id === level.product_id)!.sku).to.equal(level.sku);
      }
    }
    const atVan = await exportSheet(company.token, `/api/v1/export/stock/?location_id=${van.id}`);
    expect(atVan.rows.map((r) => [r.sku, r.location, r.quantity])).to.deep.equal([[bolt.sku, 'Van', '2']]);
    const milkOnly = await exportSheet(company.token, `/api/v1/export/stock/?sku=${milk.sku}`);
    expect(milkOnly.rows.map((r) => r.batch_code)).to.deep.equal(['LOT-1', 'LOT-2']);
  });

  it('answers 400 naming a bad or VIRTUAL location filter', async () => {
    const company = await buildCompany();
    expectValidationError(await get('/api/v1/export/stock/?location_id=nope', { token: company.token }), 'location_id');
    const inbound = (await query<{ id: string }>("SELECT id FROM locations WHERE company_id = $1 AND system_role = 'INBOUND'", [company.id]))[0].id;
    expectValidationError(await get(`/api/v1/export/stock/?location_id=${inbound}`, { token: company.token }), 'location_id');
    expectValidationError(await get('/api/v1/export/stock/?ordering=name', { token: company.token }), 'ordering');
  });
});

describe('GET /api/v1/export/movements/', () => {
  it('downloads the ledger, oldest first, as the list has it, with the names of products, locations and who booked', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company, '@shelf');
    const product = await buildProduct(company, { name: 'Nut' });
    const other = await buildProduct(company, { name: 'Washer' });
    await addStock(company, product.id, shelf.id, 5, { reason: 'first, "quoted"\nand two lines' });
    await addStock(company, other.id, shelf.id, 1);
    await post(
      '/api/v1/movements/',
      {
        product_id: product.id,
        from_location_id: shelf.id,
        to_location_id: (await query<{ id: string }>("SELECT id FROM locations WHERE company_id = $1 AND system_role = 'OUTBOUND'", [company.id]))[0].id,
        quantity: 2,
        reason: '=1+1',
      },
      { token: company.token },
    );

    const { rows } = await exportSheet(company.token, '/api/v1/export/movements/');
    const list = (await get('/api/v1/movements/?page_size=500&ordering=created_at', { token: company.token })).body.results as Array<Record<string, any>>;
    expect(rows.map((r) => r.movement_id)).to.deep.equal(list.map((m) => m.id));
    expect(rows.map((r) => [r.kind, r.sku, r.product_name, r.from_location, r.to_location, r.quantity])).to.deep.equal([
      ['ADD', product.sku, 'Nut', 'Inbound', "'@shelf", '5'],
      ['ADD', other.sku, 'Washer', 'Inbound', "'@shelf", '1'],
      ['SUBTRACT', product.sku, 'Nut', "'@shelf", 'Outbound', '2'],
    ]);
    expect(rows[0].reason).to.equal('first, "quoted"\nand two lines');
    expect(rows[2].reason).to.equal("'=1+1");
    expect(rows[2].booked_by).to.equal(company.admin.username);
    expect(rows[0].booked_by).to.not.be.empty;
    for (const r of rows) expect(new Date(r.created_at).toISOString()).to.equal(r.created_at);

    const onlyNut = await exportSheet(company.token, `/api/v1/export/movements/?product_id=${product.id}&ordering=-created_at`);
    expect(onlyNut.rows.map((r) => r.kind)).to.deep.equal(['SUBTRACT', 'ADD']);
    const later = await exportSheet(
      company.token,
      `/api/v1/export/movements/?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(later.rows).to.deep.equal([]);
  });

  it('answers 400 naming each bad filter', async () => {
    const company = await buildCompany();
    const auth = { token: company.token };
    expectValidationError(await get('/api/v1/export/movements/?created_after=yesterday', auth), 'created_after');
    expectValidationError(await get('/api/v1/export/movements/?kind=STEAL', auth), 'kind');
    expectValidationError(await get('/api/v1/export/movements/?product_id=123', auth), 'product_id');
    expectValidationError(
      await get('/api/v1/export/movements/?created_after=2030-01-02T00:00:00Z&created_before=2030-01-01T00:00:00Z', auth),
      'created_before',
    );
    expectValidationError(await get('/api/v1/export/movements/?colour=red', auth), 'colour');
  });

  it('streams a ledger of several thousand movements, every one once, in several reads', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { name: 'Many' });
    const names = ['North', 'South', 'East'];
    for (const name of names) await buildLocation(company, name);
    const csv = ['sku,location,quantity', ...Array.from({ length: 3000 }, (_, i) => `${product.sku},${names[i % 3]},${(i % 7) + 1}`)].join('\n');
    const imported = await importCsv(company.token, '/api/v1/stock/import/', csv);
    expect(imported.status, JSON.stringify(imported.body).slice(0, 500)).to.equal(201);

    const res = await fetch(`${system().url}/api/v1/export/movements/`, { headers: { authorization: `Bearer ${company.token}` } });
    expect(res.status).to.equal(200);
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    expect(chunks.length, 'read in several pieces').to.be.above(1);
    const text = Buffer.concat(chunks).subarray(3).toString('utf8');
    const [, ...rows] = parseCsv(text);
    expect(rows).to.have.length(3000);
    const ids = (await query<{ id: string }>('SELECT id FROM stock_movements WHERE company_id = $1 ORDER BY seq', [company.id])).map((r) => r.id);
    expect(rows.map((r) => r[12])).to.deep.equal(ids);
  });

  it('waits for a slow reader inside its snapshot and ends the transaction when the reader goes away', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const shelf = await buildLocation(company, 'Shelf');
    const csv = ['sku,location,quantity', ...Array.from({ length: 2500 }, () => `${product.sku},${shelf.name},1`)].join('\n');
    expect((await importCsv(company.token, '/api/v1/stock/import/', csv)).status).to.equal(201);
    const { stream: stuck, written } = stalledReader();
    const identity = { companyId: company.id } as Identity;
    const running = writeSheet({ sequelize: system().db.sequelize, config: { PUBLIC_BASE_URL: 'http://127.0.0.1' } }, movementSheet(identity, {}), stuck);
    const open = () => idleCursorSessions('sheet_movements');
    const steady = await pausedSamples('sheet_movements');
    stuck.destroy();
    const outcome = await running.then(
      () => 'finished',
      (err: unknown) => err,
    );
    expect(steady, 'the export paused inside its transaction').to.equal(5);
    expect(outcome).to.be.instanceOf(ExportAbortedError);
    expect(await open()).to.equal(0);
    expect(written()).to.be.below(EXPORT_CHUNK * 400);
  });
});

describe('spreadsheet exports and company isolation', () => {
  it("gives company B none of company A's rows, and 403 for A's ids as filters", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const shelf = await buildLocation(a, unique('Secret shelf'));
    const product = await buildProduct(a, { name: unique('Secret product') });
    await addStock(a, product.id, shelf.id, 3);
    const mine = await buildProduct(b);
    for (const path of ['/api/v1/export/products/', '/api/v1/export/stock/', '/api/v1/export/movements/']) {
      const { text } = await exportSheet(b.token, path);
      for (const secret of [product.id, product.sku, product.name, shelf.id, shelf.name, a.id]) expect(text, path).not.to.include(secret);
    }
    expect((await exportSheet(b.token, '/api/v1/export/products/')).rows.map((r) => r.sku)).to.deep.equal([mine.sku]);
    expectAccessDenied(await get(`/api/v1/export/movements/?product_id=${product.id}`, { token: b.token }), [product.name]);
    expectAccessDenied(await get(`/api/v1/export/stock/?location_id=${shelf.id}`, { token: b.token }), [shelf.name]);
    expect((await get('/api/v1/export/movements/?product_id=00000000-0000-4000-8000-000000000000', { token: b.token })).status).to.equal(404);
  });

  it('lets a viewer export, and keeps the company export at one an hour', async () => {
    const company = await buildCompany();
    await buildProduct(company, { name: 'Visible' });
    const viewer = await buildUser(company, { role: 'viewer' });
    for (const path of ['/api/v1/export/products/', '/api/v1/export/stock/', '/api/v1/export/movements/']) await exportSheet(viewer.token, path);
    expect((await exportSheet(viewer.token, '/api/v1/export/products/')).rows.map((r) => r.name)).to.deep.equal(['Visible']);
    // With the rate limits on, the company export keeps its one an hour; the spreadsheets are not counted against it.
    const gw = await system().startGateway({ RATE_LIMITS: 'on' });
    try {
      const at = { token: company.token, baseUrl: gw.url };
      expect((await get('/api/v1/export/products/', at)).status).to.equal(200);
      expect((await get('/api/v1/export/', at)).status).to.equal(200);
      expectRateLimited(await get('/api/v1/export/', at), 'company_export');
      expect((await get('/api/v1/export/movements/', at)).status).to.equal(200);
      expect((await get('/api/v1/export/stock/', at)).status).to.equal(200);
    } finally {
      await gw.close();
    }
  });
});

describe('POST /api/v1/locations/import/', () => {
  it("creates the hierarchy in file order, parents by name (the company's or an earlier row's), with audit entries", async () => {
    const company = await buildCompany();
    const site = await buildLocation(company, 'Main site');
    // `'=Room` is how the export writes a name starting with `=`: it imports as `=Room`.
    const csv = 'Name,Type,Parent\nHall A,WAREHOUSE,main SITE\nShelf 1,shelf,Hall A\n"Shelf, 2",SHELF,hall a\nVan 7,VEHICLE,\n\'=Room,STORE,\n';
    const audits = await auditCount(company.id, 'location');
    const res = await importCsv(company.token, '/api/v1/locations/import/', csv);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.include({ imported: 5, dry_run: false });
    const [hall, shelf1, shelf2, van, room] = res.body.locations;
    expect(room.name).to.equal('=Room');
    expect([hall.name, shelf1.name, shelf2.name, van.name]).to.deep.equal(['Hall A', 'Shelf 1', 'Shelf, 2', 'Van 7']);
    expect(hall).to.include({ type: 'WAREHOUSE', parent_id: site.id });
    expect(shelf1).to.include({ type: 'SHELF', parent_id: hall.id });
    expect(shelf2.parent_id).to.equal(hall.id);
    expect(van.parent_id).to.equal(null);
    expect((await get(`/api/v1/locations/${shelf1.id}/`, { token: company.token })).body).to.deep.equal(shelf1);
    expect(await auditCount(company.id, 'location')).to.equal(audits + 5);
  });

  it('checks and writes nothing on a dry run', async () => {
    const company = await buildCompany();
    const before = [await locationCount(company.id), await auditCount(company.id, 'location')];
    const res = await importCsv(company.token, '/api/v1/locations/import/', 'name,type\nA,WAREHOUSE\nB,STORE\n', true);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ dry_run: true, imported: 0, would_import: 2 });
    expect([await locationCount(company.id), await auditCount(company.id, 'location')]).to.deep.equal(before);
  });

  it('imports nothing and names every problem by row and column', async () => {
    const company = await buildCompany();
    await buildLocation(company, 'Twin');
    await buildLocation(company, 'twin');
    const before = await locationCount(company.id);
    const csv = [
      'name,type,parent',
      'Good,WAREHOUSE,',
      ',SHELF,',
      'Bad type,CELLAR,',
      'Early,SHELF,Late',
      'Late,WAREHOUSE,',
      'Orphan,SHELF,Nowhere',
      'Ambiguous,SHELF,TWIN',
      'Virtual,SHELF,Inbound',
      'Short',
    ].join('\n');
    const rows = expectImportFailed(await importCsv(company.token, '/api/v1/locations/import/', csv), [
      [2, 'name'],
      [3, 'type'],
      [4, 'parent'],
      [6, 'parent'],
      [7, 'parent'],
      [8, 'parent'],
      [9, 'row'],
      [9, 'type'],
    ]);
    expect(rows.find((r) => r.row === 4)!.message).to.include('row 5');
    expect(await locationCount(company.id)).to.equal(before);
  });

  it('answers 400 naming an unknown column, 415 for another content type, and refuses a viewer', async () => {
    const company = await buildCompany();
    const before = await locationCount(company.id);
    expectValidationError(await importCsv(company.token, '/api/v1/locations/import/', 'name,type,colour\nA,SHELF,red\n'), 'header.colour');
    expectValidationError(await importCsv(company.token, '/api/v1/locations/import/', 'name\nA\n'), 'header.type');
    expectErrorShape(await post('/api/v1/locations/import/', { name: 'A' }, { token: company.token }), 415, 'unsupported_media_type');
    const viewer = await buildUser(company, { role: 'viewer' });
    expectPermissionDenied(await importCsv(viewer.token, '/api/v1/locations/import/', 'name,type\nA,SHELF\n'));
    expectPermissionDenied(await importCsv(viewer.token, '/api/v1/locations/import/', 'name,type\nA,SHELF\n', true));
    const member = await buildUser(company, { role: 'member' });
    expect((await importCsv(member.token, '/api/v1/locations/import/', 'name,type\nBy member,SHELF\n')).status).to.equal(201);
    expect(await locationCount(company.id)).to.equal(before + 1);
  });
});

describe('POST /api/v1/stock/import/', () => {
  it('books one ledger addition per row, and the balances equal the ledger afterwards', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company, 'Shelf');
    const van = await buildLocation(company, 'Van');
    const bolt = await buildProduct(company, { name: 'Bolt' });
    const milk = await buildProduct(company, { profile: 'BATCH', name: 'Milk' });
    const rope = await buildProduct(company, { profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm' } });
    const csv = [
      'sku,location,quantity,batch_code,expiration_date,reason',
      `${bolt.sku},shelf,10,,,`,
      `${bolt.sku},Van,2.0,,,Found in the van`,
      `${milk.sku},Shelf,3,LOT-A,2031-02-28,`,
      `${milk.sku},Van,4,LOT-A,,`,
      `${rope.sku},Van,12.25,,,`,
    ].join('\n');
    const res = await importCsv(company.token, '/api/v1/stock/import/', csv);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.imported).to.equal(5);
    expect(res.body.bookings.map((b: any) => [b.row, b.sku, b.location, b.batch_code, b.quantity_at_location])).to.deep.equal([
      [1, bolt.sku, 'Shelf', null, 10],
      [2, bolt.sku, 'Van', null, 2],
      [3, milk.sku, 'Shelf', 'LOT-A', 3],
      [4, milk.sku, 'Van', 'LOT-A', 4],
      [5, rope.sku, 'Van', null, 12.25],
    ]);

    expect((await findStockDifferences(system().db, company.id)).differences).to.deep.equal([]);
    const movements = (await get('/api/v1/movements/?page_size=500&ordering=created_at', { token: company.token })).body.results as Array<Record<string, any>>;
    expect(movements.map((m) => [m.kind, m.quantity, m.reason])).to.deep.equal([
      ['ADD', 10, 'Opening stock'],
      ['ADD', 2, 'Found in the van'],
      ['ADD', 3, 'Opening stock'],
      ['ADD', 4, 'Opening stock'],
      ['ADD', 12.25, 'Opening stock'],
    ]);
    const inbound = (await query<{ id: string }>("SELECT id FROM locations WHERE company_id = $1 AND system_role = 'INBOUND'", [company.id]))[0].id;
    expect(movements.every((m) => m.from_location_id === inbound)).to.equal(true);
    expect(res.body.bookings.map((b: any) => b.movement_id)).to.deep.equal(movements.map((m) => m.id));

    const stock = (await get('/api/v1/stock/?page_size=500', { token: company.token })).body.results as Array<Record<string, any>>;
    const at = (productId: string, locationId: string) =>
      stock.find((s) => s.product_id === productId)!.locations.find((l: any) => l.location_id === locationId)?.quantity;
    expect([at(bolt.id, shelf.id), at(bolt.id, van.id), at(milk.id, shelf.id), at(milk.id, van.id), at(rope.id, van.id)]).to.deep.equal([10, 2, 3, 4, 12.25]);
    const batches = await query<{ code: string; expiration_date: string }>(
      "SELECT code, to_char(expiration_date, 'YYYY-MM-DD') AS expiration_date FROM batches WHERE company_id = $1",
      [company.id],
    );
    expect(batches).to.deep.equal([{ code: 'LOT-A', expiration_date: '2031-02-28' }]);

    // The stock export imports as it is (its other columns are ignored): into a company with the same names.
    const { text } = await exportSheet(company.token, `/api/v1/export/stock/?product_id=${bolt.id}`);
    const dry = await importCsv(company.token, '/api/v1/stock/import/', text, true);
    expect(dry.body, JSON.stringify(dry.body)).to.deep.equal({ dry_run: true, imported: 0, would_import: 2 });
  });

  it('books thousands of rows in one go beside concurrent bookings of the same stock: every unit once, balances equal to the ledger', async () => {
    const company = await buildCompany();
    const bolt = await buildProduct(company, { name: 'Bolt' });
    const milk = await buildProduct(company, { profile: 'BATCH', name: 'Milk' });
    const [north, south] = [await buildLocation(company, 'North'), await buildLocation(company, 'South')];
    const lines = Array.from({ length: 2000 }, (_, i) =>
      i % 2 ? `${bolt.sku},${i % 4 === 1 ? 'North' : 'South'},${(i % 5) + 1},,` : `${milk.sku},North,1,LOT-${i % 3},`,
    );
    const imported = (lines: string[]) =>
      lines.reduce((sum, line) => {
        const [sku, location, quantity] = line.split(',');
        return sku === bolt.sku && location === 'North' ? sum + Number(quantity) : sum;
      }, 0);
    // The same balance booked one by one while the file is booked: the stock locks keep them in one order.
    const [res] = await Promise.all([
      importCsv(company.token, '/api/v1/stock/import/', ['sku,location,quantity,batch_code,reason', ...lines].join('\n')),
      ...Array.from({ length: 10 }, () => addStock(company, bolt.id, north.id, 1)),
    ]);
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(201);
    expect(res.body.imported).to.equal(2000);
    expect((await findStockDifferences(system().db, company.id)).differences).to.deep.equal([]);
    expect(await balanceOf(bolt.id, north.id)).to.equal(imported(lines) + 10);
    expect(await balanceOf(bolt.id, south.id)).to.equal(lines.filter((l) => l.includes(',South,')).reduce((sum, l) => sum + Number(l.split(',')[2]), 0));
    expect(await balanceOf(milk.id, north.id)).to.equal(1000);
    const byBatch = await query<{ code: string; quantity: string }>(
      'SELECT b.code, sb.quantity::text AS quantity FROM stock_balances sb JOIN batches b ON b.id = sb.batch_id WHERE sb.product_id = $1 ORDER BY b.code',
      [milk.id],
    );
    expect(byBatch.map((b) => [b.code, Number(b.quantity)])).to.deep.equal([
      ['LOT-0', 334],
      ['LOT-1', 333],
      ['LOT-2', 333],
    ]);
    // One ledger row per line, in the file's order.
    const rows = await query<{ quantity: string }>(
      "SELECT quantity::text AS quantity FROM stock_movements WHERE company_id = $1 AND reason = 'Opening stock' ORDER BY seq",
      [company.id],
    );
    expect(rows.map((r) => Number(r.quantity))).to.deep.equal(lines.map((l) => Number(l.split(',')[2])));
  });

  it('checks and books nothing on a dry run', async () => {
    const company = await buildCompany();
    await buildLocation(company, 'Shelf');
    const milk = await buildProduct(company, { profile: 'BATCH' });
    const before = await ledgerSnapshot(company.id);
    const res = await importCsv(company.token, '/api/v1/stock/import/', `sku,location,quantity,batch_code\n${milk.sku},Shelf,5,NEW-LOT\n`, true);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ dry_run: true, imported: 0, would_import: 1 });
    expect(await ledgerSnapshot(company.id)).to.deep.equal(before);
  });

  describe('with an Idempotency-Key (a retry after an answer that never came books nothing twice)', () => {
    const importWithKey = (token: string, csv: string, key: string, dryRun = false) =>
      api('POST', `/api/v1/stock/import/${dryRun ? '?dry_run=true' : ''}`, {
        token,
        rawBody: csv,
        headers: { 'content-type': 'text/csv', 'idempotency-key': key },
      });

    it('answers a retry with the first answer again, with Idempotent-Replayed: true, and books once', async () => {
      const company = await buildCompany();
      const shelf = await buildLocation(company, 'Shelf');
      const bolt = await buildProduct(company);
      const csv = `sku,location,quantity\n${bolt.sku},Shelf,7\n${bolt.sku},Shelf,5\n`;
      const key = unique('import');
      const first = await importWithKey(company.token, csv, key);
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      const retry = await importWithKey(company.token, csv, key);
      expect(retry.status).to.equal(201);
      expect(retry.headers.get('idempotent-replayed')).to.equal('true');
      expect(JSON.stringify(retry.body)).to.equal(JSON.stringify(first.body));
      expect(await balanceOf(bolt.id, shelf.id)).to.equal(12);
      expect(await movementCount(company.id)).to.equal(2);
      // Another file under the same key is refused; nothing more is booked.
      const other = await importWithKey(company.token, `sku,location,quantity\n${bolt.sku},Shelf,1\n`, key);
      expect(other.status, JSON.stringify(other.body)).to.equal(409);
      expect(other.body.code).to.equal('idempotency_key_reused');
      expect(await balanceOf(bolt.id, shelf.id)).to.equal(12);
    });

    it('remembers neither a dry run nor a refused file under the key: the import after them books', async () => {
      const company = await buildCompany();
      const shelf = await buildLocation(company, 'Shelf');
      const bolt = await buildProduct(company);
      const key = unique('import');
      const good = `sku,location,quantity\n${bolt.sku},Shelf,3\n`;
      expect((await importWithKey(company.token, good, key, true)).status).to.equal(200);
      expectImportFailed(await importWithKey(company.token, `sku,location,quantity\n${bolt.sku},Nowhere,3\n`, key), [[1, 'location']]);
      const booked = await importWithKey(company.token, good, key);
      expect(booked.status, JSON.stringify(booked.body)).to.equal(201);
      expect(booked.headers.get('idempotent-replayed')).to.equal(null);
      expect(await balanceOf(bolt.id, shelf.id)).to.equal(3);
    });

    it('books once when the same import is sent twice at the same moment: one books, the other answers its booking', async () => {
      const company = await buildCompany();
      const shelf = await buildLocation(company, 'Shelf');
      const bolt = await buildProduct(company);
      const csv = `sku,location,quantity\n${Array.from({ length: 200 }, () => `${bolt.sku},Shelf,1`).join('\n')}\n`;
      const key = unique('import');
      const answers = await Promise.all([importWithKey(company.token, csv, key), importWithKey(company.token, csv, key)]);
      expect(answers.map((a) => a.status)).to.deep.equal([201, 201]);
      expect(answers.map((a) => a.headers.get('idempotent-replayed')).sort()).to.deep.equal([null, 'true'].sort());
      expect(answers[0].body).to.deep.equal(answers[1].body);
      expect(await balanceOf(bolt.id, shelf.id)).to.equal(200);
      expect(await movementCount(company.id)).to.equal(200);
    });

    it('refuses a key that a booking of the company spent (409 idempotency_key_reused), and books nothing', async () => {
      const company = await buildCompany();
      const { key, product: bolt, location: shelf } = await keySpentOnBooking(company);
      const res = await importWithKey(company.token, `sku,location,quantity\n${bolt.sku},Shelf,4\n`, key);
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.code).to.equal('idempotency_key_reused');
      expect(await balanceOf(bolt.id, shelf.id)).to.equal(2);
    });

    it("keeps a company's keys its own: another company's import under the same key books", async () => {
      const [a, b] = [await buildCompany(), await buildCompany()];
      const key = unique('import');
      for (const company of [a, b]) {
        const shelf = await buildLocation(company, 'Shelf');
        const bolt = await buildProduct(company);
        const res = await importWithKey(company.token, `sku,location,quantity\n${bolt.sku},Shelf,4\n`, key);
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.headers.get('idempotent-replayed')).to.equal(null);
        expect(await balanceOf(bolt.id, shelf.id)).to.equal(4);
      }
    });
  });

  it('books nothing and names every problem by row and column', async () => {
    const company = await buildCompany();
    await buildLocation(company, 'Shelf');
    await buildLocation(company, 'Twin');
    await buildLocation(company, 'TWIN');
    const bolt = await buildProduct(company);
    const milk = await buildProduct(company, { profile: 'BATCH' });
    const other = await buildProduct(company, { profile: 'BATCH' });
    const serial = await buildProduct(company, { profile: 'SERIALIZED' });
    const ok = (await addStock(company, other.id, (await buildLocation(company)).id, 1, { batch: { code: 'TAKEN' } })) && true;
    expect(ok).to.equal(true);
    const before = await ledgerSnapshot(company.id);
    const csv = [
      'sku,location,quantity,batch_code,expiration_date',
      `${bolt.sku},Shelf,5,,`, // fine
      `NOPE,Shelf,5,,`,
      `${bolt.sku},Nowhere,5,,`,
      `${bolt.sku},twin,5,,`,
      `${bolt.sku},Inbound,5,,`,
      `${bolt.sku},Shelf,-1,,`,
      `${bolt.sku},Shelf,1.5,,`,
      `${bolt.sku},Shelf,1,LOT,`,
      `${milk.sku},Shelf,1,,`,
      `${milk.sku},Shelf,1,TAKEN,`,
      `${milk.sku},Shelf,1,L2,2031-02-30`,
      `${serial.sku},Shelf,1,,`,
      `${milk.sku},Shelf,1,L3,2031-01-01`,
      `${milk.sku},Shelf,1,L3,2032-01-01`,
    ].join('\n');
    expectImportFailed(await importCsv(company.token, '/api/v1/stock/import/', csv), [
      [2, 'sku'],
      [3, 'location'],
      [4, 'location'],
      [5, 'location'],
      [6, 'quantity'],
      [7, 'quantity'],
      [8, 'batch_code'],
      [9, 'batch_code'],
      [10, 'batch_code'],
      [11, 'expiration_date'],
      [12, 'sku'],
      [14, 'expiration_date'],
    ]);
    expect(await ledgerSnapshot(company.id)).to.deep.equal(before);
  });

  it('answers 400 for a missing column, and refuses a viewer whatever the dry run', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company, 'Shelf');
    const bolt = await buildProduct(company);
    expectValidationError(await importCsv(company.token, '/api/v1/stock/import/', `sku,location\n${bolt.sku},Shelf\n`), 'header.quantity');
    const viewer = await buildUser(company, { role: 'viewer' });
    const before = await movementCount(company.id);
    expectPermissionDenied(await importCsv(viewer.token, '/api/v1/stock/import/', `sku,location,quantity\n${bolt.sku},Shelf,1\n`));
    expectPermissionDenied(await importCsv(viewer.token, '/api/v1/stock/import/', `sku,location,quantity\n${bolt.sku},Shelf,1\n`, true));
    expect(await movementCount(company.id)).to.equal(before);
    void shelf;
  });

  it("finds only the caller's products and locations by name", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const secret = await buildProduct(a);
    await buildLocation(a, 'A only');
    await buildLocation(b, 'Shelf');
    const res = await importCsv(b.token, '/api/v1/stock/import/', `sku,location,quantity\n${secret.sku},A only,1\n`);
    expectImportFailed(res, [
      [1, 'sku'],
      [1, 'location'],
    ]);
    expect(await movementCount(a.id)).to.equal(0);
    expect(await movementCount(b.id)).to.equal(0);
  });
});

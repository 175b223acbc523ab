/**
 * The location and product imports under an `Idempotency-Key` (docs/api/spreadsheets.md, "Safe to retry"): an
 * import whose answer never came is retried with its key and answers the first import again instead of
 * creating its locations twice, or refusing every SKU it created. The opening-stock import's keys are tested
 * with its bookings, in spreadsheets.test.ts. Through the gateway against the real database.
 */
import { expect } from 'chai';
import { api, type ApiResponse } from '../../support/api';
import { expectImportFailed } from '../../support/assertions';
import { buildCompany, keySpentOnBooking, unique, type TestCompany } from '../../support/builders';
import { count } from '../../support/sql';

interface KeyedImport {
  title: string;
  path: string;
  contentType: string;
  /** A file of `rows` new records (new SKUs each call; location names need not be unique). */
  file(rows: number): string;
  /** A file whose first row is refused, and the field named. */
  refused: { file: string; field: string };
  /** The company's records of the kind the import creates. */
  table: 'locations' | 'product_models';
  auditType: 'location' | 'product_model';
}

const productRows = (rows: number) => Array.from({ length: rows }, () => unique('SKU'));

const IMPORTS: KeyedImport[] = [
  {
    title: 'POST /api/v1/locations/import/',
    path: '/api/v1/locations/import/',
    contentType: 'text/csv',
    file: (rows) => `name,type,parent\nHall,WAREHOUSE,\n${Array.from({ length: rows - 1 }, (_, i) => `Shelf ${i + 1},SHELF,Hall`).join('\n')}\n`,
    refused: { file: 'name,type\nKeep,CASTLE\n', field: 'type' },
    table: 'locations',
    auditType: 'location',
  },
  {
    title: 'POST /api/v1/product-models/import/ (CSV)',
    path: '/api/v1/product-models/import/',
    contentType: 'text/csv',
    file: (rows) =>
      `sku,name,profile,engine_type\n${productRows(rows)
        .map((sku) => `${sku},Bolt ${sku},STANDARD,counter`)
        .join('\n')}\n`,
    refused: { file: `sku,name,profile,engine_type\n${unique('SKU')},Bolt,SPACESHIP,counter\n`, field: 'profile' },
    table: 'product_models',
    auditType: 'product_model',
  },
  {
    title: 'POST /api/v1/product-models/import/ (JSON)',
    path: '/api/v1/product-models/import/',
    contentType: 'application/json',
    file: (rows) =>
      JSON.stringify({
        products: productRows(rows).map((sku) => ({ sku, name: `Bolt ${sku}`, profile: 'STANDARD', engine_config: { engine_type: 'counter' } })),
      }),
    refused: {
      file: JSON.stringify({ products: [{ sku: unique('SKU'), name: 'Bolt', profile: 'SPACESHIP', engine_config: { engine_type: 'counter' } }] }),
      field: 'profile',
    },
    table: 'product_models',
    auditType: 'product_model',
  },
];

for (const spec of IMPORTS) {
  describe(`${spec.title} with an Idempotency-Key`, () => {
    const send = (company: TestCompany, file: string, key?: string, dryRun = false): Promise<ApiResponse> =>
      api('POST', `${spec.path}${dryRun ? '?dry_run=true' : ''}`, {
        token: company.token,
        rawBody: file,
        headers: { 'content-type': spec.contentType, ...(key ? { 'idempotency-key': key } : {}) },
      });
    /** The company's records and their audit entries. */
    const written = async (company: TestCompany) => [
      await count(`SELECT count(*) FROM ${spec.table} WHERE company_id = $1`, [company.id]),
      await count('SELECT count(*) FROM audit_log WHERE company_id = $1 AND resource_type = $2', [company.id, spec.auditType]),
    ];
    const plus = (before: number[], rows: number) => before.map((n) => n + rows);

    it('answers a retry with the first answer again, with Idempotent-Replayed: true, and creates the records once', async () => {
      const company = await buildCompany();
      const before = await written(company);
      const file = spec.file(3);
      const key = unique('import');
      const first = await send(company, file, key);
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      // The answer as it was before imports took keys, in the same order of fields.
      expect(Object.keys(first.body)).to.deep.equal(['imported', 'dry_run', spec.table === 'locations' ? 'locations' : 'products']);
      const retry = await send(company, file, key);
      expect(retry.status, JSON.stringify(retry.body)).to.equal(201);
      expect(retry.headers.get('idempotent-replayed')).to.equal('true');
      expect(JSON.stringify(retry.body)).to.equal(JSON.stringify(first.body));
      expect(await written(company)).to.deep.equal(plus(before, 3));
      // Another file under the same key is refused, and writes nothing.
      const other = await send(company, spec.file(1), key);
      expect(other.status, JSON.stringify(other.body)).to.equal(409);
      expect(other.body.code).to.equal('idempotency_key_reused');
      expect(await written(company)).to.deep.equal(plus(before, 3));
    });

    it('remembers neither a dry run nor a refused file under the key: the import after them writes', async () => {
      const company = await buildCompany();
      const before = await written(company);
      const key = unique('import');
      const file = spec.file(2);
      expect((await send(company, file, key, true)).status).to.equal(200);
      expectImportFailed(await send(company, spec.refused.file, key), [[1, spec.refused.field]]);
      expect(await written(company)).to.deep.equal(before);
      const created = await send(company, file, key);
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.headers.get('idempotent-replayed')).to.equal(null);
      expect(await written(company)).to.deep.equal(plus(before, 2));
    });

    it('creates once when the same import is sent twice at the same moment: one writes, the other answers its answer', async () => {
      const company = await buildCompany();
      const before = await written(company);
      const file = spec.file(150);
      const key = unique('import');
      const answers = await Promise.all([send(company, file, key), send(company, file, key)]);
      expect(answers.map((a) => a.status)).to.deep.equal([201, 201]);
      expect(answers.map((a) => a.headers.get('idempotent-replayed')).sort()).to.deep.equal([null, 'true'].sort());
      expect(JSON.stringify(answers[0].body)).to.equal(JSON.stringify(answers[1].body));
      expect(await written(company)).to.deep.equal(plus(before, 150));
    });

    it('refuses a key that a booking of the company spent (409 idempotency_key_reused), and writes nothing', async () => {
      const company = await buildCompany();
      const { key } = await keySpentOnBooking(company);
      const before = await written(company);
      const res = await send(company, spec.file(1), key);
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.code).to.equal('idempotency_key_reused');
      expect(await written(company)).to.deep.equal(before);
    });

    it("keeps a company's keys its own: another company's import under the same key writes", async () => {
      const key = unique('import');
      for (const company of [await buildCompany(), await buildCompany()]) {
        const before = await written(company);
        const res = await send(company, spec.file(1), key);
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.headers.get('idempotent-replayed')).to.equal(null);
        expect(await written(company)).to.deep.equal(plus(before, 1));
      }
    });
  });
}

describe('a location or product import retried without a key', () => {
  it('creates the locations again, and refuses the products it created (why the dashboard sends a key)', async () => {
    const company = await buildCompany();
    const locations = 'name,type\nAnnex,WAREHOUSE\n';
    const sku = unique('SKU');
    const products = `sku,name,profile,engine_type\n${sku},Bolt,STANDARD,counter\n`;
    for (let i = 0; i < 2; i++) {
      const res = await api('POST', '/api/v1/locations/import/', { token: company.token, rawBody: locations, headers: { 'content-type': 'text/csv' } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    expect(await count("SELECT count(*) FROM locations WHERE company_id = $1 AND name = 'Annex'", [company.id])).to.equal(2);
    const send = () => api('POST', '/api/v1/product-models/import/', { token: company.token, rawBody: products, headers: { 'content-type': 'text/csv' } });
    expect((await send()).status).to.equal(201);
    expectImportFailed(await send(), [[1, 'sku']]);
  });
});

/**
 * The sorts, searches and name filters of the movements list read an index, not the whole ledger
 * (docs/api/ordering-and-search.md, "Indexes"). A company gets 100,000 movements (one INSERT ... SELECT
 * generate_series), the tables are analyzed, and the very statements the list runs are EXPLAINed: none may
 * read stock_movements with a sequential scan. Timings are not asserted (a shared machine); the plan is.
 */
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { Identity } from '@pi/common';
import { movementListStatements } from '@pi/inventory';
import type { MovementFilters } from '@pi/inventory/dist/src/commands/ledger-reads';
import { get } from '../../support/api';
import { system } from '../../support/hooks';
import { TestCompany, buildCompany, buildProduct, unique } from '../../support/builders';
import { query } from '../../support/sql';

const MOVEMENTS = 100_000;

describe('movements list on 100,000 movements: every sort, search and filter reads an index', function () {
  this.timeout(300_000);
  let company: TestCompany;
  let identity: Identity;
  let sku: string;
  let batchCode: string;

  before(async () => {
    company = await buildCompany();
    const product = await buildProduct(company);
    const other = await buildProduct(company);
    const batchProduct = await buildProduct(company, { profile: 'BATCH' });
    sku = product.sku;
    batchCode = unique('LOT');
    const [batch] = await query<{ id: string }>('INSERT INTO batches (company_id, product_id, code) VALUES ($1, $2, $3) RETURNING id', [
      company.id,
      batchProduct.id,
      batchCode,
    ]);
    const [user] = await query<{ id: string }>('SELECT id FROM users WHERE company_id = $1', [company.id]);
    const locations = await query<{ id: string; system_role: string }>(
      'SELECT id, system_role FROM locations WHERE company_id = $1 AND system_role IS NOT NULL',
      [company.id],
    );
    const inbound = locations.find((l) => l.system_role === 'INBOUND')!.id;
    const outbound = locations.find((l) => l.system_role === 'OUTBOUND')!.id;
    // Between the two VIRTUAL locations, which keep no balances, so the ledger stays consistent with them.
    await query(
      `INSERT INTO stock_movements (company_id, product_id, kind, from_location_id, to_location_id, quantity, batch_id, reason, actor_kind, actor_id, created_at)
       SELECT $1, CASE WHEN i % 2 = 0 THEN $2::uuid ELSE $3::uuid END, (ARRAY['ADD', 'SUBTRACT', 'TRANSFER'])[1 + i % 3],
              $4, $5, 1 + i % 97, CASE WHEN i % 1000 = 0 THEN $6::uuid END, 'seeded reason ' || i, 'user', $7,
              now() - i * interval '1 second'
         FROM generate_series(1, ${MOVEMENTS}) i`,
      [company.id, product.id, other.id, inbound, outbound, batch.id, user.id],
    );
    await query('ANALYZE stock_movements');
    await query('ANALYZE product_models');
    await query('ANALYZE locations');
    await query('ANALYZE batches');
    identity = { companyId: company.id } as Identity;
  });

  async function planOf(filters: Partial<MovementFilters>): Promise<string> {
    const statements = movementListStatements(identity, { page: 1, page_size: 50, ...filters });
    const rows = await system().db.sequelize.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statements.page}`, { bind: statements.bind, type: QueryTypes.SELECT });
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  const CASES: [string, Partial<MovementFilters>][] = [
    ['the default order (newest first)', {}],
    ['ordering=created_at', { ordering: [{ field: 'created_at', descending: false }] }],
    ['ordering=-quantity', { ordering: [{ field: 'quantity', descending: true }] }],
    ['ordering=kind', { ordering: [{ field: 'kind', descending: false }] }],
    ['search=reason 4242', { search: 'reason 4242' }],
    ['search by the product SKU', { search: 'SKU_' }],
    ['sku=', { sku: '' }],
    ['location_name=Inbound', { location_name: 'inbound' }],
    ['batch_code=', { batch_code: '' }],
  ];

  for (const [what, filters] of CASES) {
    it(`${what}: no sequential scan of stock_movements`, async () => {
      const resolved = { ...filters };
      if ('sku' in resolved) resolved.sku = sku;
      if ('batch_code' in resolved) resolved.batch_code = batchCode;
      const plan = await planOf(resolved);
      expect(plan, plan).not.to.match(/Seq Scan on stock_movements/);
      expect(plan, plan).to.match(/Index (Only )?Scan (Backward )?using stock_movements_\w+ on stock_movements|Bitmap Index Scan on stock_movements_\w+/);
    });
  }

  it('answers a page of the list through the API with the count of all 100,000', async () => {
    const res = await get('/api/v1/movements/?ordering=-quantity,created_at&page_size=5', { token: company.token });
    expect(res.status).to.equal(200);
    expect(res.body.count).to.equal(MOVEMENTS);
    expect(res.body.results.map((m: { quantity: number }) => m.quantity)).to.deep.equal([97, 97, 97, 97, 97]);
  });
});

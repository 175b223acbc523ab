/**
 * What must hold of the fuzzed companies' data whatever requests ran, together or not
 * (docs/api/paths-and-hostile-input.md "Hostile input"): every balance is what the ledger says, no location is
 * its own ancestor, no inactive location holds stock, and each company keeps an active admin.
 */
import { QueryTypes } from 'sequelize';
import type { Database } from '@pi/common';
import { findStockDifferences } from '@pi/inventory';
import { system } from '../../support/hooks';

const BROKEN_RULES_SQL = `
  WITH RECURSIVE walk AS (
    SELECT l.id AS start_id, l.parent_id AS at_id, l.company_id FROM locations l
     WHERE l.company_id = ANY($1::uuid[]) AND l.parent_id IS NOT NULL
    UNION ALL
    SELECT w.start_id, l.parent_id, w.company_id FROM walk w JOIN locations l ON l.id = w.at_id
     WHERE l.parent_id IS NOT NULL AND w.at_id <> w.start_id
  ) CYCLE at_id SET looped USING path
  SELECT 'location ' || start_id || ' is its own ancestor' AS problem FROM walk WHERE at_id = start_id
  UNION ALL
  SELECT 'inactive location ' || b.location_id || ' holds ' || trim_scale(b.quantity) || ' of product ' || b.product_id
    FROM stock_balances b JOIN locations l ON l.id = b.location_id
   WHERE b.company_id = ANY($1::uuid[]) AND NOT l.is_active AND b.quantity <> 0
  UNION ALL
  SELECT 'company ' || c.id || ' has no active admin' FROM companies c
   WHERE c.id = ANY($1::uuid[]) AND NOT EXISTS (SELECT 1 FROM users u WHERE u.company_id = c.id AND u.role = 'admin' AND u.is_active)`;

/** Every rule above that the companies' data breaks, in words (empty when all hold); `db`: the test system's. */
export async function brokenRules(companyIds: string[], db: Database = system().db): Promise<string[]> {
  const rows = await db.sequelize.query<{ problem: string }>(BROKEN_RULES_SQL, { bind: [companyIds], type: QueryTypes.SELECT });
  const problems = [...new Set(rows.map((r) => r.problem))];
  for (const companyId of companyIds) {
    const { differences } = await findStockDifferences(db, companyId);
    problems.push(...differences.map((d) => `${d.kind} of product ${d.product_id} at ${d.location_id}: ledger ${d.expected}, stored ${d.actual}`));
  }
  return problems;
}

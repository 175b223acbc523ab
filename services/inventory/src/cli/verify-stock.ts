/**
 * `npm run stock:verify [-- --company <id>]`: checks that the balance projection matches the ledger
 * (docs/decisions/0001-stock-ledger.md: it must find none). Works on DATABASE_URL, or on the standalone database of DATA_DIR
 * (running or not), like `npm run admin`.
 *
 * Two checks, read in one snapshot so that bookings running meanwhile cannot cause false alarms:
 *  1. every physical balance (product, location, batch) equals the ledger's movements into that place minus
 *     the movements out of it; a missing balance row counts as 0, and a balance row on a VIRTUAL location
 *     (which has none by design) counts as a difference;
 *  2. for SERIALIZED products, the balance of each (product, location) equals its count of active items.
 *
 * Prints each difference and `balances checked: N, differences: M`; exits 0 when there are none, 1 when
 * there are, 2 when it cannot run (bad arguments, no database).
 */
import { parseArgs } from 'node:util';
import Joi from 'joi';
import { QueryTypes, Transaction } from 'sequelize';
import type { InventoryContext } from '../context';
import { connectDatabase, operatorMessage, validateValue } from '@pi/common';
import { openDatabaseUrl, standaloneEnvironment } from '@pi/db';

export interface StockDifference {
  /** `balance`: ledger vs stock_balances. `items`: active items vs stock_balances (SERIALIZED products). */
  kind: 'balance' | 'items';
  company_id: string;
  product_id: string;
  location_id: string;
  batch_id: string | null;
  /** What the ledger (kind `balance`) or the active items (kind `items`) say, as a decimal string. */
  expected: string;
  /** What stock_balances holds, as a decimal string (`0` when there is no row). */
  actual: string;
}

export interface StockVerification {
  /** (product, location, batch) places compared: those the ledger reaches plus those with a balance row. */
  balances: number;
  /** (product, location) places of SERIALIZED products compared with their active items. */
  serialized: number;
  differences: StockDifference[];
}

interface ComparedRow {
  checked: string;
  company_id: string | null;
  product_id: string;
  location_id: string;
  batch_id: string | null;
  expected: string;
  actual: string;
}

/** `WHERE <alias>.company_id = $1` when one company is asked for, nothing otherwise. */
const scopeOf =
  (companyId: string | undefined) =>
  (alias: string, glue: 'WHERE' | 'AND' = 'WHERE') =>
    companyId ? `${glue} ${alias}.company_id = $1` : '';

function ledgerSql(companyId?: string): string {
  const scope = scopeOf(companyId);
  return `
    WITH places AS (
      SELECT m.company_id, m.product_id, m.to_location_id AS location_id, m.batch_id, m.quantity AS expected, 0::numeric AS actual
        FROM stock_movements m ${scope('m')}
      UNION ALL
      SELECT m.company_id, m.product_id, m.from_location_id, m.batch_id, -m.quantity, 0
        FROM stock_movements m ${scope('m')}
    ),
    compared AS (
      SELECT x.company_id, x.product_id, x.location_id, x.batch_id, SUM(x.expected) AS expected, SUM(x.actual) AS actual
        FROM (
          SELECT p.* FROM places p JOIN locations l ON l.id = p.location_id WHERE l.type <> 'VIRTUAL'
          UNION ALL
          SELECT b.company_id, b.product_id, b.location_id, b.batch_id, 0, b.quantity FROM stock_balances b ${scope('b')}
        ) x
       GROUP BY x.company_id, x.product_id, x.location_id, x.batch_id
    )
    SELECT t.checked, c.company_id, c.product_id, c.location_id, c.batch_id,
           trim_scale(c.expected)::text AS expected, trim_scale(c.actual)::text AS actual
      FROM (SELECT count(*) AS checked FROM compared) t
      LEFT JOIN compared c ON c.expected <> c.actual
     ORDER BY c.company_id, c.product_id, c.location_id, c.batch_id NULLS FIRST`;
}

function itemsSql(companyId?: string): string {
  const scope = scopeOf(companyId);
  return `
    WITH compared AS (
      SELECT x.company_id, x.product_id, x.location_id, SUM(x.items) AS expected, SUM(x.balance) AS actual
        FROM (
          SELECT i.company_id, i.product_id, i.location_id, 1::numeric AS items, 0::numeric AS balance
            FROM physical_items i WHERE i.is_active ${scope('i', 'AND')}
          UNION ALL
          SELECT b.company_id, b.product_id, b.location_id, 0, b.quantity FROM stock_balances b ${scope('b')}
        ) x
        JOIN product_models p ON p.id = x.product_id AND p.profile = 'SERIALIZED'
       GROUP BY x.company_id, x.product_id, x.location_id
    )
    SELECT t.checked, c.company_id, c.product_id, c.location_id, NULL::uuid AS batch_id,
           trim_scale(c.expected)::text AS expected, trim_scale(c.actual)::text AS actual
      FROM (SELECT count(*) AS checked FROM compared) t
      LEFT JOIN compared c ON c.expected <> c.actual
     ORDER BY c.company_id, c.product_id, c.location_id`;
}

function differencesOf(rows: ComparedRow[], kind: StockDifference['kind']): StockDifference[] {
  return rows
    .filter((r) => r.company_id !== null)
    .map((r) => ({
      kind,
      company_id: r.company_id!,
      product_id: r.product_id,
      location_id: r.location_id,
      batch_id: r.batch_id,
      expected: r.expected,
      actual: r.actual,
    }));
}

/**
 * Recomputes every physical balance from the ledger (and SERIALIZED balances from active items) and returns
 * what differs from stock_balances; all companies, or one. Read-only, in one REPEATABLE READ snapshot.
 */
export async function findStockDifferences({ sequelize }: Pick<InventoryContext, 'sequelize'>, companyId?: string): Promise<StockVerification> {
  const bind = companyId ? [companyId] : [];
  return sequelize.transaction({ isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ }, async (transaction) => {
    await sequelize.query('SET TRANSACTION READ ONLY', { transaction });
    const balances = await sequelize.query<ComparedRow>(ledgerSql(companyId), { bind, type: QueryTypes.SELECT, transaction });
    const items = await sequelize.query<ComparedRow>(itemsSql(companyId), { bind, type: QueryTypes.SELECT, transaction });
    return {
      balances: Number(balances[0].checked),
      serialized: Number(items[0].checked),
      differences: [...differencesOf(balances, 'balance'), ...differencesOf(items, 'items')],
    };
  });
}

/** One line per difference, for people. */
export function describeDifference(d: StockDifference): string {
  const place = `company ${d.company_id} product ${d.product_id} location ${d.location_id}`;
  return d.kind === 'balance'
    ? `difference: ${place} batch ${d.batch_id ?? '-'}: ledger ${d.expected}, stock_balances ${d.actual}`
    : `difference: ${place} (SERIALIZED): ${d.expected} active items, stock_balances ${d.actual}`;
}

const USAGE = 'usage: npm run stock:verify [-- --company <company-id>]';

async function main(): Promise<number> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { company: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const companyId = values.company === undefined ? undefined : validateValue(Joi.string().guid().required(), values.company, 'company');
  const target = await openDatabaseUrl(standaloneEnvironment(process.env));
  const db = connectDatabase({ url: target.url, poolMax: 2, applicationName: 'pi-stock-verify' });
  try {
    const result = await findStockDifferences({ sequelize: db.sequelize }, companyId);
    for (const d of result.differences) process.stdout.write(`${describeDifference(d)}\n`);
    process.stdout.write(`serialized places checked: ${result.serialized}\n`);
    process.stdout.write(`balances checked: ${result.balances}, differences: ${result.differences.length}\n`);
    return result.differences.length ? 1 : 0;
  } finally {
    await db.close();
    await target.release();
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: Error & { details?: Record<string, unknown> }) => {
      const details = err.details && Object.keys(err.details).length ? ` ${JSON.stringify(err.details)}` : '';
      process.stderr.write(`stock:verify: ${operatorMessage(err)}${details}\n${USAGE}\n`);
      process.exit(2);
    },
  );
}

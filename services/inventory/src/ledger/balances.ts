/**
 * The balance projection (stock_balances), changed only here and only together with a ledger insert in the
 * same transaction. Rows exist for physical locations; `batch_id` is null for products without batches.
 */
import { QueryTypes, Sequelize, Transaction } from 'sequelize';
import { InsufficientStockError } from './errors';

export interface BalanceKey {
  companyId: string;
  productId: string;
  locationId: string;
  batchId: string | null;
}

export async function addToBalance(sequelize: Sequelize, transaction: Transaction, key: BalanceKey, quantity: string): Promise<void> {
  await sequelize.query(
    `INSERT INTO stock_balances (company_id, product_id, location_id, batch_id, quantity)
     VALUES ($1, $2, $3, $4, $5::numeric)
     ON CONFLICT ON CONSTRAINT stock_balances_key
     DO UPDATE SET quantity = stock_balances.quantity + EXCLUDED.quantity, updated_at = now()`,
    { bind: [key.companyId, key.productId, key.locationId, key.batchId, quantity], transaction },
  );
}

export async function readBalance(sequelize: Sequelize, transaction: Transaction, key: Omit<BalanceKey, 'companyId'>): Promise<string> {
  const rows = await sequelize.query<{ quantity: string }>(
    'SELECT quantity FROM stock_balances WHERE product_id = $1 AND location_id = $2 AND batch_id IS NOT DISTINCT FROM $3',
    { bind: [key.productId, key.locationId, key.batchId], transaction, type: QueryTypes.SELECT },
  );
  return rows[0]?.quantity ?? '0';
}

/** The balance (0 without a row) and `target` minus it, as NUMERIC strings, in one read: what a count books. */
export async function differenceTo(sequelize: Sequelize, transaction: Transaction, key: Omit<BalanceKey, 'companyId'>, target: string) {
  const [row] = await sequelize.query<{ current: string; diff: string }>(
    `SELECT b.quantity::text AS current, ($4::numeric - b.quantity)::text AS diff
       FROM (SELECT COALESCE((SELECT quantity FROM stock_balances
                               WHERE product_id = $1 AND location_id = $2 AND batch_id IS NOT DISTINCT FROM $3), 0) AS quantity) b`,
    { bind: [key.productId, key.locationId, key.batchId, target], transaction, type: QueryTypes.SELECT },
  );
  return row;
}

/** Conditional subtraction: succeeds only if the balance covers `quantity`, else 409 with what is there. */
export async function takeFromBalance(sequelize: Sequelize, transaction: Transaction, key: BalanceKey, quantity: string): Promise<void> {
  const [rows] = await sequelize.query(
    `UPDATE stock_balances SET quantity = quantity - $4::numeric, updated_at = now()
      WHERE product_id = $1 AND location_id = $2 AND batch_id IS NOT DISTINCT FROM $3 AND quantity >= $4::numeric
      RETURNING quantity`,
    { bind: [key.productId, key.locationId, key.batchId, quantity], transaction },
  );
  if (rows.length === 0) {
    throw new InsufficientStockError(await readBalance(sequelize, transaction, key), quantity, key.locationId, key.batchId);
  }
}

/** A quantity of one batch (null: no batch) of a booking that moves several at once (FEFO). */
export interface BalancePart {
  batchId: string | null;
  quantity: string;
}

/**
 * Conditional subtractions of several batches at one location in one statement: all of them, or 409 naming
 * the first part the balance does not cover (its transaction then rolls back the others).
 */
export async function takeFromBalances(sequelize: Sequelize, transaction: Transaction, at: Omit<BalanceKey, 'batchId'>, parts: BalancePart[]): Promise<void> {
  const taken = await sequelize.query<{ batch_id: string | null }>(
    `UPDATE stock_balances b SET quantity = b.quantity - p.quantity, updated_at = now()
       FROM unnest($3::uuid[], $4::numeric[]) AS p(batch_id, quantity)
      WHERE b.product_id = $1 AND b.location_id = $2 AND b.batch_id IS NOT DISTINCT FROM p.batch_id AND b.quantity >= p.quantity
      RETURNING b.batch_id`,
    { bind: [at.productId, at.locationId, parts.map((p) => p.batchId), parts.map((p) => p.quantity)], transaction, type: QueryTypes.SELECT },
  );
  if (taken.length === parts.length) return;
  const done = new Set(taken.map((t) => t.batch_id));
  const short = parts.find((p) => !done.has(p.batchId))!;
  const available = await readBalance(sequelize, transaction, { ...at, batchId: short.batchId });
  throw new InsufficientStockError(available, short.quantity, at.locationId, short.batchId);
}

/** Additions to several batches at one location in one statement. */
export async function addToBalances(sequelize: Sequelize, transaction: Transaction, at: Omit<BalanceKey, 'batchId'>, parts: BalancePart[]): Promise<void> {
  await sequelize.query(
    `INSERT INTO stock_balances (company_id, product_id, location_id, batch_id, quantity)
     SELECT $1, $2, $3, p.batch_id, p.quantity FROM unnest($4::uuid[], $5::numeric[]) AS p(batch_id, quantity)
     ON CONFLICT ON CONSTRAINT stock_balances_key
     DO UPDATE SET quantity = stock_balances.quantity + EXCLUDED.quantity, updated_at = now()`,
    { bind: [at.companyId, at.productId, at.locationId, parts.map((p) => p.batchId), parts.map((p) => p.quantity)], transaction },
  );
}

/**
 * Which batches of a product at a location cover `quantity`, earliest expiry first (FEFO), undated last: each
 * batch with stock gives what is left to take, up to its balance. `total` is all the stock there, in every
 * row. Amounts are split in SQL (NUMERIC), not floats.
 */
export function fefoParts(sequelize: Sequelize, transaction: Transaction, productId: string, locationId: string, quantity: string) {
  return sequelize.query<{ batch_id: string; take: string; total: string }>(
    `SELECT batch_id, LEAST(quantity, $3::numeric - before)::text AS take, total::text AS total
       FROM (SELECT sb.batch_id, sb.quantity,
                    SUM(sb.quantity) OVER fefo - sb.quantity AS before,
                    SUM(sb.quantity) OVER () AS total,
                    row_number() OVER fefo AS n
               FROM stock_balances sb JOIN batches b ON b.id = sb.batch_id
              WHERE sb.product_id = $1 AND sb.location_id = $2 AND sb.quantity > 0
             WINDOW fefo AS (ORDER BY b.expiration_date ASC NULLS LAST, b.created_at, b.id)) running
      WHERE before < $3::numeric
      ORDER BY n`,
    { bind: [productId, locationId, quantity], transaction, type: QueryTypes.SELECT },
  );
}

/**
 * A product's total stock (all physical locations) and its stock at each of `locationIds`, in that order, read
 * in the booking. One row whatever `locationIds` holds: a caller that shows only the total passes none.
 */
export async function stockTotals(sequelize: Sequelize, transaction: Transaction, productId: string, locationIds: string[]) {
  const [row] = await sequelize.query<{ total: string; at: string[] }>(
    `SELECT COALESCE((SELECT SUM(quantity) FROM stock_balances WHERE product_id = $1), 0)::text AS total,
            ARRAY(SELECT COALESCE((SELECT SUM(quantity) FROM stock_balances WHERE product_id = $1 AND location_id = l.id), 0)::text
                    FROM unnest($2::uuid[]) WITH ORDINALITY AS l(id, n)
                   ORDER BY l.n) AS at`,
    { bind: [productId, locationIds], transaction, type: QueryTypes.SELECT },
  );
  return row;
}

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

/** Conditional subtraction: succeeds only if the balance covers `quantity`, else 409 with what is there. */
export async function takeFromBalance(sequelize: Sequelize, transaction: Transaction, key: BalanceKey, quantity: string): Promise<void> {
  const [rows] = await sequelize.query(
    `UPDATE stock_balances SET quantity = quantity - $4::numeric, updated_at = now()
      WHERE product_id = $1 AND location_id = $2 AND batch_id IS NOT DISTINCT FROM $3 AND quantity >= $4::numeric
      RETURNING quantity`,
    { bind: [key.productId, key.locationId, key.batchId, quantity], transaction },
  );
  if ((rows as unknown[]).length === 0) {
    throw new InsufficientStockError(await readBalance(sequelize, transaction, key), quantity, key.locationId, key.batchId);
  }
}

export interface BatchBalance {
  batch_id: string;
  quantity: string;
}

/** Batches of a product at a location with stock, earliest expiry first (FEFO), undated last. */
export function batchBalancesFefo(sequelize: Sequelize, transaction: Transaction, productId: string, locationId: string) {
  return sequelize.query<BatchBalance>(
    `SELECT sb.batch_id, sb.quantity
       FROM stock_balances sb JOIN batches b ON b.id = sb.batch_id
      WHERE sb.product_id = $1 AND sb.location_id = $2 AND sb.quantity > 0
      ORDER BY b.expiration_date ASC NULLS LAST, b.created_at, b.id`,
    { bind: [productId, locationId], transaction, type: QueryTypes.SELECT },
  );
}

/** Total stock of a product (all physical locations) and at one location, read inside the booking. */
export async function stockTotals(sequelize: Sequelize, transaction: Transaction, productId: string, locationId?: string) {
  const [row] = await sequelize.query<{ total: string; at_location: string }>(
    `SELECT COALESCE(SUM(quantity), 0) AS total,
            COALESCE(SUM(quantity) FILTER (WHERE location_id = $2), 0) AS at_location
       FROM stock_balances WHERE product_id = $1`,
    { bind: [productId, locationId ?? null], transaction, type: QueryTypes.SELECT },
  );
  return row;
}

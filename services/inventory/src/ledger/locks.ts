/**
 * Every booking first takes a transaction-scoped advisory lock per (product, location) it touches, in one
 * global order (the numeric lock key). Bookings on the same stock therefore run one after another, and two
 * transfers in opposite directions can never deadlock, whatever rows they go on to read or insert.
 */
import { createHash } from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize';

/** The advisory lock key of a (product, location): the first 8 bytes of SHA-256, as ledger_lock_key computes it in SQL. */
export function lockKey(productId: string, locationId: string): bigint {
  return createHash('sha256').update(`${productId}/${locationId}`).digest().readBigInt64BE(0);
}

const ascending = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The locks of (product, location) pairs, in the global order above, in one statement: the aggregate takes
 * them in the order of its sorted subquery.
 */
export async function lockStockPairs(sequelize: Sequelize, transaction: Transaction, pairs: Array<{ productId: string; locationId: string }>): Promise<void> {
  const keys = [...new Set(pairs.map((p) => lockKey(p.productId, p.locationId)))].sort(ascending);
  await sequelize.query('SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT k FROM unnest($1::bigint[]) WITH ORDINALITY AS u(k, n) ORDER BY n) AS keys', {
    bind: [keys.map(String)],
    transaction,
  });
}

export async function lockStock(sequelize: Sequelize, transaction: Transaction, productId: string, locationIds: string[]): Promise<void> {
  await lockStockPairs(
    sequelize,
    transaction,
    locationIds.map((locationId) => ({ productId, locationId })),
  );
}

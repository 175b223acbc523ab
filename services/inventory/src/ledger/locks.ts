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

export async function lockStock(sequelize: Sequelize, transaction: Transaction, productId: string, locationIds: string[]): Promise<void> {
  const keys = [...new Set(locationIds)].map((l) => lockKey(productId, l)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const key of keys) {
    await sequelize.query('SELECT pg_advisory_xact_lock($1::bigint)', { bind: [key.toString()], transaction });
  }
}

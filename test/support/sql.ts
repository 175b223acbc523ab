/** Direct SELECTs on the test database (`system().db.sequelize`), for tests that check what a request stored. */
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { system } from './hooks';

/** Every row a SELECT answers. */
export async function query<T extends object = Record<string, unknown>>(sql: string, bind: unknown[] = []): Promise<T[]> {
  return system().db.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
}

/** One number from a `SELECT count(*) ...` query. */
export async function count(sql: string, bind: unknown[] = []): Promise<number> {
  const rows = await query<{ count: string }>(sql, bind);
  return Number(rows[0].count);
}

/** The one row a SELECT answers (fails unless there is exactly one). */
export async function row<T extends object = Record<string, unknown>>(sql: string, bind: unknown[] = []): Promise<T> {
  const rows = await query<T>(sql, bind);
  expect(rows).to.have.length(1);
  return rows[0];
}

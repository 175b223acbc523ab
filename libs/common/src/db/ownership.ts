/**
 * Company isolation in one place. A record named by id is looked up without the company filter so that
 * "exists in another company" (403 access_denied, vague on purpose) can be told from "exists nowhere" (404).
 */
import type { Transaction } from 'sequelize';
import type { Model, ModelCtor } from 'sequelize-typescript';
import { AccessDeniedError, NotFoundError } from '../errors';

type Owned = Model & { companyId: string };

export async function findOwned<M extends Owned>(
  model: ModelCtor<M>,
  id: string,
  companyId: string,
  /** `lock`: true for FOR UPDATE, or a lock level such as `Transaction.LOCK.SHARE`. */
  opts: { transaction?: Transaction; lock?: boolean | Transaction['LOCK'][keyof Transaction['LOCK']]; what?: string } = {},
): Promise<M> {
  const row = (await model.findByPk(id, { transaction: opts.transaction, lock: opts.lock })) as M | null;
  if (!row) throw new NotFoundError(`${opts.what ?? 'Record'} not found.`);
  if (row.companyId !== companyId) throw new AccessDeniedError();
  return row;
}

/**
 * Company isolation in one place. A record named by id, in a path, a body or a list filter, is looked up
 * without the company filter so that "exists in another company" (403 access_denied, vague on purpose) can be
 * told from "exists nowhere" (404). `checkOwner` is the one decision; `findOwned` applies it to a row the
 * caller needs, `IdOwner`s (and http/owned-filters.ts) to ids that only filter a list.
 */
import type { Transaction } from 'sequelize';
import type { Model, ModelCtor } from 'sequelize-typescript';
import { AccessDeniedError, NotFoundError } from '../errors';

type Owned = Model & { companyId: string };

/** The caller's company among `owners` passes; another company's record is 403; none at all is 404. */
export function checkOwner(owners: readonly string[], companyId: string, what: string): void {
  if (owners.includes(companyId)) return;
  if (owners.length) throw new AccessDeniedError();
  throw new NotFoundError(`${what} not found.`);
}

export async function findOwned<M extends Owned>(
  model: ModelCtor<M>,
  id: string,
  companyId: string,
  /** `lock`: true for FOR UPDATE, or a lock level such as `Transaction.LOCK.SHARE`. */
  opts: { transaction?: Transaction; lock?: boolean | Transaction['LOCK'][keyof Transaction['LOCK']]; what?: string } = {},
): Promise<M> {
  const row = await model.findByPk<M>(id, { transaction: opts.transaction, lock: opts.lock });
  checkOwner(row ? [row.companyId] : [], companyId, opts.what ?? 'Record');
  return row!;
}

/** Who owns the records an id may name: what a list filter checks before it filters. */
export interface IdOwner {
  /** The record's name in a 404: `Product`. */
  what: string;
  /**
   * The companies whose record the id names (none when it names nothing). `companyId` is the caller's, for
   * lookups that try it first; `query` the validated query, for filters whose meaning depends on another one.
   */
  owners(id: string, companyId: string, query: Readonly<Record<string, unknown>>): Promise<string[]>;
}

/** The owner of a row of `model`'s table, by primary key. */
export function ownerOfRow<M extends Owned>(model: ModelCtor<M>, what: string): IdOwner {
  return {
    what,
    owners: async (id) => {
      const row = (await model.findByPk(id, { attributes: ['companyId'], raw: true })) as { companyId: string } | null;
      return row ? [row.companyId] : [];
    },
  };
}

/** Checks that `id` names a record of the caller's company (403 / 404 otherwise). */
export async function checkIdOwned(owner: IdOwner, id: string, companyId: string, query: Readonly<Record<string, unknown>> = {}): Promise<void> {
  checkOwner(await owner.owners(id, companyId, query), companyId, owner.what);
}

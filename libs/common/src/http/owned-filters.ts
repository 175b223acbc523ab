/**
 * Ids in list filters are checked like ids in paths (docs/api/conventions.md "Company isolation"): a route lists its id filters
 * and their owners right after `validate()`, and this step answers 403 `access_denied` for another company's
 * record and 404 for an id that names nothing, before the list runs. A filter naming someone else's record
 * must not answer an empty page, which would also tell an unknown id from a foreign one.
 */
import type { RequestHandler } from 'express';
import { IdOwner, checkIdOwned } from '../db/ownership';

/** The step keeps its filter names, so that a test can prove every id filter of every list has one. */
export type OwnedFiltersHandler = RequestHandler & { ownedFilters: readonly string[] };

/** Checks each filter of `owners` the (validated) query names, in the order given. */
export function ownedFilters(owners: Readonly<Record<string, IdOwner>>): OwnedFiltersHandler {
  const entries = Object.entries(owners);
  const handler: RequestHandler = async (req, _res, next) => {
    const query = req.query as Readonly<Record<string, unknown>>;
    for (const [filter, owner] of entries) {
      const id = query[filter];
      if (typeof id === 'string') await checkIdOwned(owner, id, req.identity!.companyId, query);
    }
    next();
  };
  return Object.assign(handler, { ownedFilters: entries.map(([filter]) => filter) });
}

/**
 * What each monitor list may be sorted by (`ordering`, docs/api/ordering-and-search.md): API field -> trusted
 * SQL. Every sort of a stored list has an index that starts with company_id (migration 0016); rules are
 * computed (product-implied ones have no row), so they are sorted in memory by the same whitelist.
 */
import type { ListOrdering } from '@pi/common';

/** Severity sorts by rank (INFO < WARNING < CRITICAL), not alphabetically. Migration 0016 indexes this expression. */
export const SEVERITY_RANK_SQL = "(CASE severity WHEN 'CRITICAL' THEN 3 WHEN 'WARNING' THEN 2 ELSE 1 END)";
export const SEVERITY_RANK: Readonly<Record<string, number>> = { INFO: 1, WARNING: 2, CRITICAL: 3 };

export const EVENT_ORDERING: ListOrdering = {
  fields: { created_at: 'created_at', severity: SEVERITY_RANK_SQL, status: 'status' },
  default: '-created_at',
};

export const DELIVERY_ORDERING: ListOrdering = {
  fields: { created_at: 'created_at', status: 'status' },
  default: '-created_at',
};

export const CHANNEL_ORDERING: ListOrdering = {
  fields: { name: { sql: ['lower(name)', 'name'] }, kind: 'kind', created_at: 'created_at' },
  default: 'created_at',
};

/** In memory: fields of an effective rule (commands/rules.ts reads them). */
export const RULE_ORDERING: ListOrdering = {
  fields: { name: 'name', trigger_type: 'trigger_type', severity: 'severity', source: 'source', product_id: 'product_id' },
  default: 'product_id',
  defaultText: 'stored rules in the order they were created, then the rules a product implies, by product name',
};

/** A run of one company is keyed by its run id. */
export const RUN_ORDERING: ListOrdering = {
  fields: { started_at: 'rc.started_at' },
  default: '-started_at',
  tieBreaker: 'rc.run_id',
};

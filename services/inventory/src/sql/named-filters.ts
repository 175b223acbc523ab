/**
 * SQL conditions for the name and code filters (http/named-filters.ts): each becomes a sub-select of the
 * company's ids by the indexed `lower(...)` expression (migration 0016), so a filter costs one index lookup
 * and the list keeps its own index for the ids.
 */
import { literal } from 'sequelize';
import type { Sequelize } from 'sequelize';
import type { NamedFilters } from '../http/named-filters';

/** Where each named filter finds its ids, given SQL for the company and for the value. */
const LOOKUPS: Record<keyof NamedFilters, (company: string, value: string) => string> = {
  sku: (c, v) => `SELECT id FROM product_models WHERE company_id = ${c} AND lower(sku) = lower(${v})`,
  location_name: (c, v) => `SELECT id FROM locations WHERE company_id = ${c} AND lower(name) = lower(${v})`,
  batch_code: (c, v) => `SELECT id FROM batches WHERE company_id = ${c} AND lower(code) = lower(${v})`,
};

export type NamedFilterColumns = Partial<Record<keyof NamedFilters, string | string[]>>;

/**
 * One condition per given filter on the column(s) it restricts (`location_name` may name several: a movement
 * matches from or to the location). `company` is SQL for the company id; `param` turns a value into SQL (a
 * bind placeholder or an escaped literal).
 */
export function namedFilterConditions(filters: NamedFilters, columns: NamedFilterColumns, company: string, param: (value: string) => string): string[] {
  const out: string[] = [];
  for (const key of Object.keys(LOOKUPS) as (keyof NamedFilters)[]) {
    const value = filters[key];
    const target = columns[key];
    if (value === undefined || target === undefined) continue;
    const ids = `ARRAY(${LOOKUPS[key](company, param(value))})`;
    const cols = Array.isArray(target) ? target : [target];
    out.push(`(${cols.map((c) => `${c} = ANY(${ids})`).join(' OR ')})`);
  }
  return out;
}

/** The same conditions for raw SQL whose `$1` is the company: values are appended to `bind`. */
export function boundNamedFilters(filters: NamedFilters, columns: NamedFilterColumns, bind: unknown[]): string[] {
  return namedFilterConditions(filters, columns, '$1', (v) => {
    bind.push(v);
    return `$${bind.length}`;
  });
}

/** The same conditions as Sequelize literals (values escaped by Sequelize), for a `where` `Op.and` list. */
export function sequelizeNamedFilters(sequelize: Sequelize, companyId: string, filters: NamedFilters, columns: NamedFilterColumns) {
  return namedFilterConditions(filters, columns, sequelize.escape(companyId), (v) => sequelize.escape(v)).map((c) => literal(c));
}

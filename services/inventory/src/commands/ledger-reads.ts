/** The ledger as a list: newest first (server sequence) unless `ordering` says otherwise, filtered, one page at a time. */
import { QueryTypes, Sequelize } from 'sequelize';
import { Identity, MovementKind, OrderTerm, PageRequest, likePattern, orderBySql, pageWindow } from '@pi/common';
import type { MovementRow } from '../ledger/movements';
import type { NamedFilters } from '../http/named-filters';
import { boundNamedFilters } from '../sql/named-filters';
import { MOVEMENT_ORDERING } from '../sql/orderings';

export interface MovementFilters extends PageRequest, NamedFilters {
  product_id?: string;
  location_id?: string;
  batch_id?: string;
  kind?: MovementKind;
  created_after?: Date;
  created_before?: Date;
  search?: string;
  ordering?: OrderTerm[];
}

/**
 * The statements of one page and of its count, with their values. Exported so that a test can EXPLAIN exactly
 * what the list runs.
 */
export function movementListStatements(identity: Identity, f: MovementFilters) {
  const { limit, offset } = pageWindow(f);
  const bind: unknown[] = [identity.companyId, f.product_id ?? null, f.location_id ?? null, f.batch_id ?? null, f.kind ?? null, f.created_after ?? null, f.created_before ?? null];
  const where = boundNamedFilters(f, { sku: 'm.product_id', location_name: ['m.from_location_id', 'm.to_location_id'], batch_code: 'm.batch_id' }, bind);
  if (f.search) {
    bind.push(likePattern(f.search));
    const p = `$${bind.length}`;
    // The products are found first (their own trigram indexes), so the ledger is read through two indexes
    // (reason's trigram index, product's) rather than joined row by row.
    where.push(
      `(m.reason ILIKE ${p} OR m.product_id = ANY(ARRAY(SELECT id FROM product_models WHERE company_id = $1 AND (sku ILIKE ${p} OR name ILIKE ${p}))))`,
    );
  }
  const condition = `m.company_id = $1
        AND ($2::uuid IS NULL OR m.product_id = $2::uuid)
        AND ($3::uuid IS NULL OR m.from_location_id = $3::uuid OR m.to_location_id = $3::uuid)
        AND ($4::uuid IS NULL OR m.batch_id = $4::uuid)
        AND ($5::text IS NULL OR m.kind = $5::text)
        AND ($6::timestamptz IS NULL OR m.created_at >= $6::timestamptz)
        AND ($7::timestamptz IS NULL OR m.created_at < $7::timestamptz)
        ${where.map((w) => `AND ${w}`).join('\n        ')}`;
  return {
    page: `SELECT m.* FROM stock_movements m WHERE ${condition}
        ORDER BY ${orderBySql(MOVEMENT_ORDERING, f.ordering)}
        LIMIT ${limit} OFFSET ${offset}`,
    count: `SELECT count(*) AS count FROM stock_movements m WHERE ${condition}`,
    bind,
  };
}

export async function listMovements(sequelize: Sequelize, identity: Identity, f: MovementFilters) {
  // Named records are the caller's: the route's ownedFilters step checked them (403 / 404).
  const statements = movementListStatements(identity, f);
  // The page and the count are separate statements: a count over the window would make every page read (and
  // sort) all of the company's movements instead of walking the sort's index for one page.
  const [rows, [{ count }]] = await Promise.all([
    sequelize.query<MovementRow>(statements.page, { bind: statements.bind, type: QueryTypes.SELECT }),
    sequelize.query<{ count: string }>(statements.count, { bind: statements.bind, type: QueryTypes.SELECT }),
  ]);
  return { rows, count: Number(count) };
}

/**
 * The ledger as a list: newest first (server sequence) unless `ordering` says otherwise, filtered, one page at
 * a time. Each entry comes with the names of who booked it (docs/api/scanning.md): the user, or the API key;
 * for a key minted by a QR scan the code and the user who signed in inside the widget; the batch's code. Joined by primary key
 * in the page's statement.
 */
import { QueryTypes } from 'sequelize';
import { Identity, MovementKind, OrderTerm, PageRequest, likePattern, orderBySql, pageWindow } from '@pi/common';
import type { InventoryContext } from '../context';
import type { MovementRow } from '../ledger/movements';
import type { NamedFilters } from '../http/named-filters';
import { boundNamedFilters } from '../sql/named-filters';
import { MOVEMENT_ORDERING } from '../sql/orderings';

/** A ledger entry with the names of who booked it. */
export interface LedgerEntryRow extends MovementRow {
  actor_username: string | null;
  actor_email: string | null;
  actor_key_name: string | null;
  actor_key_prefix: string | null;
  actor_qr_code: string | null;
  scan_user_id: string | null;
  scan_username: string | null;
  scan_user_email: string | null;
  batch_code: string | null;
}

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

/** The list's filters as one condition on `m` (the ledger), with its values; the spreadsheet export uses it too. */
export function movementCondition(identity: Identity, f: Omit<MovementFilters, keyof PageRequest>) {
  const bind: unknown[] = [
    identity.companyId,
    f.product_id ?? null,
    f.location_id ?? null,
    f.batch_id ?? null,
    f.kind ?? null,
    f.created_after ?? null,
    f.created_before ?? null,
  ];
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
  return { condition, bind };
}

/**
 * The statements of one page and of its count, with their values. Exported so that a test can EXPLAIN exactly
 * what the list runs.
 */
export function movementListStatements(identity: Identity, f: MovementFilters) {
  const { limit, offset } = pageWindow(f);
  const { condition, bind } = movementCondition(identity, f);
  return {
    page: `SELECT m.*,
            u.username AS actor_username, u.email AS actor_email,
            k.name AS actor_key_name, k.prefix AS actor_key_prefix, k.qr_code AS actor_qr_code,
            su.id AS scan_user_id, su.username AS scan_username, su.email AS scan_user_email,
            b.code AS batch_code
       FROM stock_movements m
       LEFT JOIN users u ON m.actor_kind = 'user' AND u.id = m.actor_id AND u.company_id = m.company_id
       LEFT JOIN api_keys k ON m.actor_kind = 'api_key' AND k.id = m.actor_id AND k.company_id = m.company_id
       LEFT JOIN users su ON su.id = k.scan_user_id
       LEFT JOIN batches b ON b.id = m.batch_id AND b.company_id = m.company_id
      WHERE ${condition}
      ORDER BY ${orderBySql(MOVEMENT_ORDERING, f.ordering)}
      LIMIT ${limit} OFFSET ${offset}`,
    count: `SELECT count(*) AS count FROM stock_movements m WHERE ${condition}`,
    bind,
  };
}

export async function listMovements(ctx: InventoryContext, identity: Identity, f: MovementFilters) {
  const { sequelize } = ctx;
  // Named records are the caller's: the route's ownedFilters step checked them (403 / 404).
  const statements = movementListStatements(identity, f);
  // The page and the count are separate statements: a count over the window would make every page read (and
  // sort) all of the company's movements instead of walking the sort's index for one page.
  const [rows, [{ count }]] = await Promise.all([
    sequelize.query<LedgerEntryRow>(statements.page, { bind: statements.bind, type: QueryTypes.SELECT }),
    sequelize.query<{ count: string }>(statements.count, { bind: statements.bind, type: QueryTypes.SELECT }),
  ]);
  return { rows, count: Number(count) };
}

/**
 * Indexes for `ordering` and `search` on the list endpoints (docs/api/ordering-and-search.md).
 *
 * Every sort a list offers has a B-tree index that starts with company_id and ends with the id tie-breaker,
 * so a page is read in index order instead of sorting the company's rows. Every substring search has a
 * trigram GIN index (pg_trgm) that starts with company_id (btree_gin), so `ILIKE '%text%'` reads the
 * matching rows of one company. Both extensions are trusted contrib extensions, shipped with PostgreSQL and
 * with the embedded PostgreSQL of the standalone mode. Where they cannot be created (a server without
 * contrib, a role without CREATE on the database), the trigram indexes are skipped and searches still work
 * as plain ILIKE scans of the company's rows; the migration says so in a NOTICE.
 */
import type { MigrationFn } from '../migrator';

/** table, index name suffix, columns (B-tree). */
const SORT_INDEXES: ReadonlyArray<readonly [string, string, string]> = [
  ['product_models', 'name', 'company_id, lower(name), name, id'],
  ['product_models', 'sku', 'company_id, lower(sku), sku, id'],
  ['product_models', 'created', 'company_id, created_at, id'],
  ['locations', 'name', 'company_id, lower(name), name, id'],
  ['locations', 'created', 'company_id, created_at, id'],
  ['locations', 'type', 'company_id, type, id'],
  ['stock_movements', 'quantity', 'company_id, quantity, id'],
  ['stock_movements', 'kind', 'company_id, kind, id'],
  ['stock_movements', 'batch', 'company_id, batch_id, seq'],
  ['physical_items', 'created', 'company_id, created_at, id'],
  ['physical_items', 'location', 'company_id, location_id'],
  ['batches', 'code', 'company_id, lower(code), code, id'],
  ['batches', 'expiry', 'company_id, expiration_date, id'],
  ['batches', 'created', 'company_id, created_at, id'],
  ['work_orders', 'due', 'company_id, due_date, id'],
  ['work_orders', 'status_id', 'company_id, status, id'],
  ['work_orders', 'created', 'company_id, created_at, id'],
  ['qr_codes', 'code', 'company_id, code'],
  ['qr_codes', 'status_id', 'company_id, status, id'],
  ['qr_codes', 'created', 'company_id, created_at, id'],
  ['event_log', 'created', 'company_id, created_at, id'],
  // Severity sorts by rank (services/monitor/src/commands/orderings.ts writes the same expression).
  ['event_log', 'severity', "company_id, (CASE severity WHEN 'CRITICAL' THEN 3 WHEN 'WARNING' THEN 2 ELSE 1 END), id"],
  ['event_log', 'status_id', 'company_id, status, id'],
  ['notification_channels', 'name', 'company_id, lower(name), name, id'],
  ['notification_channels', 'created', 'company_id, created_at, id'],
  ['notification_channels', 'kind', 'company_id, kind, id'],
  ['notification_deliveries', 'created_id', 'company_id, created_at, id'],
  ['notification_deliveries', 'status', 'company_id, status, id'],
  ['users', 'username', 'company_id, lower(username)'],
  ['users', 'created_id', 'company_id, created_at, id'],
  ['users', 'role', 'company_id, role, id'],
  ['api_keys', 'name', 'company_id, lower(name), name, id'],
  ['api_keys', 'created_id', 'company_id, created_at, id'],
  ['api_keys', 'last_used', 'company_id, last_used_at, id'],
];

/** table, searched column (trigram GIN after company_id). */
const SEARCH_INDEXES: ReadonlyArray<readonly [string, string]> = [
  ['product_models', 'sku'],
  ['product_models', 'name'],
  ['locations', 'name'],
  ['stock_movements', 'reason'],
  ['physical_items', 'serial_number'],
  ['batches', 'code'],
  ['work_orders', 'number'],
  ['work_orders', 'title'],
  ['qr_codes', 'code'],
  ['event_log', 'message'],
];

const sortIndexName = (table: string, suffix: string) => `${table}_order_${suffix}_idx`;
const searchIndexName = (table: string, column: string) => `${table}_search_${column}_idx`;

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(SORT_INDEXES.map(([t, s, cols]) => `CREATE INDEX ${sortIndexName(t, s)} ON ${t} (${cols});`).join('\n'));
  const trigram = SEARCH_INDEXES.map(([t, c]) => `EXECUTE 'CREATE INDEX ${searchIndexName(t, c)} ON ${t} USING gin (company_id, ${c} gin_trgm_ops)';`).join(
    '\n',
  );
  await sql(`
    DO $$
    BEGIN
      BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
        CREATE EXTENSION IF NOT EXISTS btree_gin;
      EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'pg_trgm/btree_gin unavailable (%): searches run without trigram indexes', SQLERRM;
        RETURN;
      END;
      ${trigram}
    END $$;
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  const names = [...SORT_INDEXES.map(([t, s]) => sortIndexName(t, s)), ...SEARCH_INDEXES.map(([t, c]) => searchIndexName(t, c))];
  // The extensions stay: other objects may use them, and they cost nothing unused.
  await sql(`DROP INDEX IF EXISTS ${names.join(', ')};`);
};

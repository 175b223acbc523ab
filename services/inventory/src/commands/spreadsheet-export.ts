/**
 * The spreadsheet exports (docs/api/spreadsheets.md): the catalog, the stock levels and the ledger as CSV,
 * filtered like their lists, written to the response as they are read. Each sheet is one SELECT read through
 * a server-side cursor, EXPORT_CHUNK rows per FETCH, in a REPEATABLE READ, READ ONLY transaction (one
 * consistent snapshot); writes wait for the socket to drain and a client that goes away ends the transaction
 * (commands/export.ts's writer). The rows carry the names people read (SKU, product, location, batch), and the
 * ids last, for machines.
 */
import { QueryTypes, Transaction } from 'sequelize';
import type { Writable } from 'node:stream';
import { Identity, ManagedTransactionOptions, OrderTerm, ValidationError, likePattern, orderBySql } from '@pi/common';
import type { InventoryContext } from '../context';
import { CSV_BOM, Cell, csvLine, csvNumber } from '../csv/cells';
import { GTIN_KEY_SQL, gtinKey } from '../catalog/gtin';
import type { NamedFilters } from '../http/named-filters';
import { boundNamedFilters } from '../sql/named-filters';
import { MOVEMENT_ORDERING, PRODUCT_ORDERING } from '../sql/orderings';
import { EXPORT_CHUNK, writer } from './export';
import { formatQuantity } from '../engine/quantity';
import type { ProductFilters } from './products';
import { MovementFilters, movementCondition } from './ledger-reads';
import { stockFilterLocation } from './stock-levels';
import { CSV_COLUMNS, EXPORT_ONLY_COLUMNS } from './import-rows';

/** A row of a sheet's own SELECT, by column name: the database's text, numbers, booleans and dates. */
type Row = Record<string, Cell>;

/** A quantity with the product's decimals (NUMERIC keeps six places): `5`, `12.25`. */
const quantityCell = (r: Row) => csvNumber(formatQuantity(r.quantity as string, r.decimals as number));

/** One CSV file: its header, its SELECT (with `$n` values) and how a row becomes cells. */
export interface Sheet {
  /** The file name's prefix: `<name>-<company>-<date>.csv`. */
  name: string;
  columns: readonly string[];
  sql: string;
  bind: unknown[];
  cells(row: Row): Cell[];
}

/** Who booked: the user's name, or the API key's (with the user who signed in inside a scan). */
const BOOKED_BY_SQL = `CASE WHEN m.actor_kind = 'user' THEN u.username
         ELSE concat_ws(' / ', k.name, su.username) END`;

/** The columns the product import reads, then the ones it accepts and skips: the file imports as it is. */
export const PRODUCT_COLUMNS = [...CSV_COLUMNS, ...EXPORT_ONLY_COLUMNS] as const;

export type ProductExportFilters = Omit<ProductFilters, 'page' | 'page_size'>;

/** The catalog, filtered and sorted like `GET /api/v1/product-models/`. */
export function productSheet(identity: Identity, f: ProductExportFilters): Sheet {
  const bind: unknown[] = [identity.companyId, f.profile ?? null, f.is_active ?? null];
  const where = ['company_id = $1', '($2::text IS NULL OR profile = $2::text)', '($3::boolean IS NULL OR is_active = $3::boolean)'];
  if (f.search) {
    bind.push(likePattern(f.search));
    where.push(`(sku ILIKE $${bind.length} OR name ILIKE $${bind.length})`);
  }
  if (f.barcode) {
    bind.push(gtinKey(f.barcode));
    where.push(`barcode IS NOT NULL AND ${GTIN_KEY_SQL('barcode')} = $${bind.length}`);
  }
  return {
    name: 'products',
    columns: PRODUCT_COLUMNS,
    sql: `SELECT id, sku, name, profile, engine_config->>'engine_type' AS engine_type, unit, decimals,
                 engine_config->>'min_stock' AS min_stock, engine_config->>'max_stock' AS max_stock, description, barcode, is_active,
                 created_at, updated_at
            FROM product_models WHERE ${where.join(' AND ')}
           ORDER BY ${orderBySql(PRODUCT_ORDERING, f.ordering)}`,
    bind,
    cells: (r) => [
      r.sku,
      r.name,
      r.profile,
      r.engine_type,
      r.unit,
      r.decimals,
      csvNumber(r.min_stock as string | null),
      csvNumber(r.max_stock as string | null),
      r.description,
      r.barcode,
      r.is_active,
      r.created_at,
      r.updated_at,
      r.id,
    ],
  };
}

export const STOCK_COLUMNS = [
  'sku',
  'product_name',
  'location',
  'location_type',
  'batch_code',
  'expiration_date',
  'quantity',
  'unit',
  'product_id',
  'location_id',
  'batch_id',
] as const;

export interface StockExportFilters extends Omit<NamedFilters, 'batch_code'> {
  product_id?: string;
  location_id?: string;
  search?: string;
}

/**
 * The stock levels as balances: one row per product, physical location and batch holding stock (not zero),
 * filtered like `GET /api/v1/stock/`; by product name, then location name, then batch code.
 */
export async function stockSheet(ctx: InventoryContext, identity: Identity, f: StockExportFilters): Promise<Sheet> {
  if (f.location_id) await stockFilterLocation(ctx, identity, f.location_id);
  const bind: unknown[] = [identity.companyId, f.product_id ?? null, f.location_id ?? null];
  const where = boundNamedFilters(f, { sku: 'sb.product_id', location_name: 'sb.location_id' }, bind);
  if (f.search) {
    bind.push(likePattern(f.search));
    where.push(`(p.sku ILIKE $${bind.length} OR p.name ILIKE $${bind.length})`);
  }
  return {
    name: 'stock',
    columns: STOCK_COLUMNS,
    sql: `SELECT p.id AS product_id, p.sku, p.name AS product_name, p.unit, p.decimals, l.id AS location_id, l.name AS location_name, l.type AS location_type,
                 b.id AS batch_id, b.code AS batch_code, to_char(b.expiration_date, 'YYYY-MM-DD') AS expiration_date, sb.quantity::text AS quantity
            FROM stock_balances sb
            JOIN product_models p ON p.id = sb.product_id
            JOIN locations l ON l.id = sb.location_id
            LEFT JOIN batches b ON b.id = sb.batch_id
           WHERE sb.company_id = $1 AND sb.quantity <> 0 AND l.type <> 'VIRTUAL'
             AND ($2::uuid IS NULL OR sb.product_id = $2::uuid) AND ($3::uuid IS NULL OR sb.location_id = $3::uuid)
             ${where.map((w) => `AND ${w}`).join(' ')}
           ORDER BY lower(p.name), p.name, p.id, lower(l.name), l.name, l.id, b.code NULLS FIRST, b.id`,
    bind,
    cells: (r) => [
      r.sku,
      r.product_name,
      r.location_name,
      r.location_type,
      r.batch_code,
      r.expiration_date,
      quantityCell(r),
      r.unit,
      r.product_id,
      r.location_id,
      r.batch_id,
    ],
  };
}

export const MOVEMENT_COLUMNS = [
  'created_at',
  'kind',
  'sku',
  'product_name',
  'from_location',
  'to_location',
  'quantity',
  'unit',
  'batch_code',
  'serial_numbers',
  'reason',
  'booked_by',
  'movement_id',
  'product_id',
  'from_location_id',
  'to_location_id',
  'batch_id',
] as const;

export type MovementExportFilters = Omit<MovementFilters, 'page' | 'page_size' | 'ordering'> & { ordering?: OrderTerm[] };

/** The ledger, filtered like `GET /api/v1/movements/`; oldest first unless `ordering` says otherwise. */
export function movementSheet(identity: Identity, f: MovementExportFilters): Sheet {
  if (f.created_after && f.created_before && f.created_after >= f.created_before) {
    throw new ValidationError({ created_before: 'must be later than created_after' });
  }
  const { condition, bind } = movementCondition(identity, f);
  return {
    name: 'movements',
    columns: MOVEMENT_COLUMNS,
    sql: `SELECT m.id, m.created_at, m.kind, p.sku, p.name AS product_name, p.unit, p.decimals, lf.name AS from_location, lt.name AS to_location,
                 m.quantity::text AS quantity, b.code AS batch_code, m.reason, ${BOOKED_BY_SQL} AS booked_by,
                 (SELECT string_agg(i.serial_number, ' ' ORDER BY i.serial_number) FROM physical_items i WHERE i.id = ANY(m.item_ids)) AS serial_numbers,
                 m.product_id, m.from_location_id, m.to_location_id, m.batch_id
            FROM stock_movements m
            JOIN product_models p ON p.id = m.product_id
            JOIN locations lf ON lf.id = m.from_location_id
            JOIN locations lt ON lt.id = m.to_location_id
            LEFT JOIN batches b ON b.id = m.batch_id
            LEFT JOIN users u ON m.actor_kind = 'user' AND u.id = m.actor_id AND u.company_id = m.company_id
            LEFT JOIN api_keys k ON m.actor_kind = 'api_key' AND k.id = m.actor_id AND k.company_id = m.company_id
            LEFT JOIN users su ON su.id = k.scan_user_id
           WHERE ${condition}
           ORDER BY ${orderBySql(MOVEMENT_ORDERING, f.ordering?.length ? f.ordering : [{ field: 'created_at', descending: false }])}`,
    bind,
    cells: (r) => [
      r.created_at,
      r.kind,
      r.sku,
      r.product_name,
      r.from_location,
      r.to_location,
      quantityCell(r),
      r.unit,
      r.batch_code,
      r.serial_numbers,
      r.reason,
      r.booked_by,
      r.id,
      r.product_id,
      r.from_location_id,
      r.to_location_id,
      r.batch_id,
    ],
  };
}

/** Streams `sheet` as CSV to `out` (whose headers the caller has set) and ends it. Reads only. */
export async function writeSheet(ctx: InventoryContext, sheet: Sheet, out: Writable): Promise<void> {
  const { sequelize } = ctx;
  const write = writer(out);
  // Streamed as it is read: never retried, and not bounded by the request's deadline while it keeps sending
  // (docs/api/deadlines-and-retries.md), as the company export.
  const options: ManagedTransactionOptions = { isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ, retry: false, deadline: false };
  await sequelize.transaction(options, async (transaction) => {
    await sequelize.query('SET TRANSACTION READ ONLY', { transaction });
    await sequelize.query(`DECLARE sheet_${sheet.name} NO SCROLL CURSOR FOR ${sheet.sql}`, { bind: sheet.bind, transaction });
    await write(CSV_BOM + csvLine([...sheet.columns]));
    for (;;) {
      const rows = await sequelize.query<Row>(`FETCH FORWARD ${EXPORT_CHUNK} FROM sheet_${sheet.name}`, { type: QueryTypes.SELECT, transaction });
      if (rows.length) await write(rows.map((r) => csvLine(sheet.cells(r))).join(''));
      if (rows.length < EXPORT_CHUNK) break;
    }
    await sequelize.query(`CLOSE sheet_${sheet.name}`, { transaction });
  });
  out.end();
}

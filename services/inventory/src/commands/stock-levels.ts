/**
 * Read side of stock: the widget's product list and detail, and the core stock levels. Each is a fixed
 * number of SQL queries whatever the catalog size: products and their summed balances in one query,
 * breakdowns for a page of products in one more.
 */
import { QueryTypes } from 'sequelize';
import {
  AccessDeniedError,
  Location,
  NotFoundError,
  OrderTerm,
  PageRequest,
  ProductModel,
  assertScanReachesProduct,
  findOwned,
  likePattern,
  orderBySql,
  pageWindow,
  scanProduct,
} from '@pi/common';
import type { InventoryContext } from '../context';
import type { NamedFilters } from '../http/named-filters';
import { boundNamedFilters } from '../sql/named-filters';
import { STOCK_ORDERING } from '../sql/orderings';
import type { Identity } from '@pi/common';
import { virtualLocation } from '../ledger/errors';
import { WidgetProductRow, widgetProductRows } from '../sql/widget-products';
import { stockedBatches } from './stock-reads';
import { gtinKey } from '../catalog/gtin';

export interface ProductStockRow {
  id: string;
  sku: string;
  name: string;
  profile: string;
  engine_type: string;
  unit: string;
  decimals: number;
  quantity: string;
}

/** A location used as a stock filter: the company's (403 otherwise), physical. */
export async function stockFilterLocation(_ctx: InventoryContext, identity: Identity, locationId: string): Promise<Location> {
  const location = await findOwned(Location, locationId, identity.companyId, { what: 'Location' });
  if (location.type === 'VIRTUAL') throw virtualLocation('location_id');
  return location;
}

/**
 * The widget's product list: the company's active products with their stock (total, or at `locationId`,
 * which must be the company's and physical), in one statement (sql/widget-products.ts); with `barcode`, only
 * the product with that GTIN.
 */
export async function widgetProductList(ctx: InventoryContext, identity: Identity, locationId?: string, barcode?: string): Promise<WidgetProductRow[]> {
  const { sequelize } = ctx;
  // A scan's key lists its target's product only (docs/api/scanning.md).
  const rows = await widgetProductRows(sequelize, identity.companyId, locationId, scanProduct(identity), barcode === undefined ? undefined : gtinKey(barcode));
  if (locationId) {
    const [, owner, type] = rows[0] ?? [];
    if (!owner) throw new NotFoundError('Location not found.');
    if (owner !== identity.companyId) throw new AccessDeniedError();
    if (type === 'VIRTUAL') throw virtualLocation('location_id');
  }
  return rows;
}

export interface LocationStockRow {
  product_id: string;
  location_id: string;
  location_name: string;
  location_type: string;
  quantity: string;
}

/** Non-zero stock per (product, physical location) for the given products, in one query. */
export function stockByLocation(ctx: InventoryContext, companyId: string, productIds: string[], locationId?: string, locationName?: string) {
  const { sequelize } = ctx;
  return sequelize.query<LocationStockRow>(
    `SELECT sb.product_id, sb.location_id, l.name AS location_name, l.type AS location_type, SUM(sb.quantity)::text AS quantity
       FROM stock_balances sb JOIN locations l ON l.id = sb.location_id
      WHERE sb.company_id = $1 AND sb.product_id = ANY($2::uuid[]) AND ($3::uuid IS NULL OR sb.location_id = $3::uuid)
        AND ($4::text IS NULL OR lower(l.name) = lower($4::text))
      GROUP BY sb.product_id, sb.location_id, l.name, l.type
     HAVING SUM(sb.quantity) > 0
      ORDER BY l.name, sb.location_id`,
    { bind: [companyId, productIds, locationId ?? null, locationName ?? null], type: QueryTypes.SELECT },
  );
}

export async function activeItemCount(ctx: InventoryContext, companyId: string, productId: string): Promise<number> {
  const { sequelize } = ctx;
  const [row] = await sequelize.query<{ n: string }>('SELECT count(*) AS n FROM physical_items WHERE company_id = $1 AND product_id = $2 AND is_active', {
    bind: [companyId, productId],
    type: QueryTypes.SELECT,
  });
  return Number(row.n);
}

export interface StockFilters extends PageRequest, Omit<NamedFilters, 'batch_code'> {
  product_id?: string;
  location_id?: string;
  search?: string;
  /** Products whose engine config sets a min_stock that their total (as this list counts it) is below. */
  below_min?: boolean;
  ordering?: OrderTerm[];
}

/**
 * The conditions on stock_balances (alias `alias`) of the stock list's totals: the location filter and the named
 * location filters, their values appended to `bind`.
 */
function balanceConditions(filters: StockFilters, bind: unknown[], alias: string): string {
  bind.push(filters.location_id ?? null);
  const location = `$${bind.length}::uuid`;
  const named = boundNamedFilters(filters, { location_name: `${alias}.location_id` }, bind);
  return [`${alias}.company_id = $1`, `(${location} IS NULL OR ${alias}.location_id = ${location})`, ...named].join(' AND ');
}

/** A page of products (optionally one) with their stock totals; breakdowns are fetched for that page. */
export async function stockLevelsPage(ctx: InventoryContext, identity: Identity, filters: StockFilters) {
  const { sequelize } = ctx;
  if (filters.location_id) await stockFilterLocation(ctx, identity, filters.location_id);
  const { limit, offset } = pageWindow(filters);
  // The product conditions' values come first, so that the count binds just those.
  const bind: unknown[] = [identity.companyId, filters.product_id ?? null];
  const productWhere = boundNamedFilters(filters, { sku: 'p.id' }, bind);
  if (filters.search) {
    bind.push(likePattern(filters.search));
    productWhere.push(`(p.sku ILIKE $${bind.length} OR p.name ILIKE $${bind.length})`);
  }
  if (filters.below_min !== undefined) {
    // The same total the row shows, compared with the product's min_stock (partial index, migration 0020).
    const total = `COALESCE((SELECT SUM(bm.quantity) FROM stock_balances bm WHERE bm.product_id = p.id AND ${balanceConditions(filters, bind, 'bm')}), 0)`;
    const below = `(p.engine_config ? 'min_stock' AND ${total} < (p.engine_config->>'min_stock')::numeric)`;
    productWhere.push(filters.below_min ? below : `NOT ${below}`);
  }
  const productCondition = ['p.company_id = $1', '($2::uuid IS NULL OR p.id = $2::uuid)', ...productWhere].join(' AND ');
  const countBind = [...bind];
  const balanceWhere = balanceConditions(filters, bind, 'sb');
  // The page and the count are separate statements, so that a page walks the sort's index (migration 0016).
  const [rows, [{ n }]] = await Promise.all([
    sequelize.query<ProductStockRow>(
      `SELECT p.id, p.sku, p.name, p.profile, p.engine_config->>'engine_type' AS engine_type, p.unit, p.decimals,
              COALESCE(s.quantity, 0)::text AS quantity
         FROM product_models p
         LEFT JOIN (SELECT sb.product_id, SUM(sb.quantity) AS quantity FROM stock_balances sb
                     WHERE ${balanceWhere}
                     GROUP BY sb.product_id) s ON s.product_id = p.id
        WHERE ${productCondition}
        ORDER BY ${orderBySql(STOCK_ORDERING, filters.ordering)}
        LIMIT ${limit} OFFSET ${offset}`,
      { bind, type: QueryTypes.SELECT },
    ),
    sequelize.query<{ n: string }>(`SELECT count(*) AS n FROM product_models p WHERE ${productCondition}`, { bind: countBind, type: QueryTypes.SELECT }),
  ]);
  const breakdown = await stockByLocation(
    ctx,
    identity.companyId,
    rows.map((r) => r.id),
    filters.location_id,
    filters.location_name,
  );
  return { rows, count: Number(n), breakdown };
}

/** One product with its total, per-location breakdown, and batches or item count as its profile has. */
export async function productDetail(ctx: InventoryContext, identity: Identity, productId: string) {
  const { sequelize } = ctx;
  assertScanReachesProduct(identity, productId);
  const product = await findOwned(ProductModel, productId, identity.companyId, { what: 'Product' });
  const [[{ total }], locations, batches, itemsCount] = await Promise.all([
    sequelize.query<{ total: string }>('SELECT COALESCE(SUM(quantity), 0)::text AS total FROM stock_balances WHERE company_id = $1 AND product_id = $2', {
      bind: [identity.companyId, product.id],
      type: QueryTypes.SELECT,
    }),
    stockByLocation(ctx, identity.companyId, [product.id]),
    product.profile === 'BATCH' ? stockedBatches(ctx, identity, product.id) : undefined,
    product.profile === 'SERIALIZED' ? activeItemCount(ctx, identity.companyId, product.id) : undefined,
  ]);
  return { product, total, locations, batches, itemsCount };
}

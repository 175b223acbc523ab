/**
 * Read side of stock: the widget's product list and detail, and the core stock levels. Each is a fixed
 * number of SQL queries whatever the catalog size: products and their summed balances in one query,
 * breakdowns for a page of products in one more.
 */
import { QueryTypes, Sequelize } from 'sequelize';
import { AccessDeniedError, Location, NotFoundError, PageRequest, ProductModel, assertScanReachesProduct, findOwned, pageWindow, scanProduct } from '@pi/common';
import type { Identity } from '@pi/common';
import { virtualLocation } from '../ledger/errors';
import { WidgetProductRow, widgetProductRows } from '../sql/widget-products';
import { stockedBatches } from './stock-reads';

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
export async function stockFilterLocation(identity: Identity, locationId: string): Promise<Location> {
  const location = await findOwned(Location, locationId, identity.companyId, { what: 'Location' });
  if (location.type === 'VIRTUAL') throw virtualLocation('location_id');
  return location;
}

/**
 * The widget's product list: the company's active products with their stock (total, or at `locationId`,
 * which must be the company's and physical), in one statement (sql/widget-products.ts).
 */
export async function widgetProductList(sequelize: Sequelize, identity: Identity, locationId?: string): Promise<WidgetProductRow[]> {
  // A scan's key lists its target's product only (docs/api/scanning.md).
  const rows = await widgetProductRows(sequelize, identity.companyId, locationId, scanProduct(identity));
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
export function stockByLocation(sequelize: Sequelize, companyId: string, productIds: string[], locationId?: string) {
  return sequelize.query<LocationStockRow>(
    `SELECT sb.product_id, sb.location_id, l.name AS location_name, l.type AS location_type, SUM(sb.quantity)::text AS quantity
       FROM stock_balances sb JOIN locations l ON l.id = sb.location_id
      WHERE sb.company_id = $1 AND sb.product_id = ANY($2::uuid[]) AND ($3::uuid IS NULL OR sb.location_id = $3::uuid)
      GROUP BY sb.product_id, sb.location_id, l.name, l.type
     HAVING SUM(sb.quantity) > 0
      ORDER BY l.name, sb.location_id`,
    { bind: [companyId, productIds, locationId ?? null], type: QueryTypes.SELECT },
  );
}

export async function activeItemCount(sequelize: Sequelize, companyId: string, productId: string): Promise<number> {
  const [row] = await sequelize.query<{ n: string }>('SELECT count(*) AS n FROM physical_items WHERE company_id = $1 AND product_id = $2 AND is_active', {
    bind: [companyId, productId],
    type: QueryTypes.SELECT,
  });
  return Number(row.n);
}

export interface StockFilters extends PageRequest {
  product_id?: string;
  location_id?: string;
}

/** A page of products (optionally one) with their stock totals; breakdowns are fetched for that page. */
export async function stockLevelsPage(sequelize: Sequelize, identity: Identity, filters: StockFilters) {
  if (filters.location_id) await stockFilterLocation(identity, filters.location_id);
  const { limit, offset } = pageWindow(filters);
  const rows = await sequelize.query<ProductStockRow & { total_count: string }>(
    `SELECT p.id, p.sku, p.name, p.profile, p.engine_config->>'engine_type' AS engine_type, p.unit, p.decimals,
            COALESCE(s.quantity, 0)::text AS quantity, count(*) OVER () AS total_count
       FROM product_models p
       LEFT JOIN (SELECT product_id, SUM(quantity) AS quantity FROM stock_balances
                   WHERE company_id = $1 AND ($3::uuid IS NULL OR location_id = $3::uuid)
                   GROUP BY product_id) s ON s.product_id = p.id
      WHERE p.company_id = $1 AND ($2::uuid IS NULL OR p.id = $2::uuid)
      ORDER BY p.name, p.sku, p.id
      LIMIT $4 OFFSET $5`,
    { bind: [identity.companyId, filters.product_id ?? null, filters.location_id ?? null, limit, offset], type: QueryTypes.SELECT },
  );
  const count = rows.length ? Number(rows[0].total_count) : await countProducts(sequelize, identity.companyId, filters.product_id);
  const breakdown = await stockByLocation(sequelize, identity.companyId, rows.map((r) => r.id), filters.location_id);
  return { rows, count, breakdown };
}

async function countProducts(sequelize: Sequelize, companyId: string, productId?: string): Promise<number> {
  const [row] = await sequelize.query<{ n: string }>('SELECT count(*) AS n FROM product_models WHERE company_id = $1 AND ($2::uuid IS NULL OR id = $2::uuid)', {
    bind: [companyId, productId ?? null],
    type: QueryTypes.SELECT,
  });
  return Number(row.n);
}

/** One product with its total, per-location breakdown, and batches or item count as its profile has. */
export async function productDetail(sequelize: Sequelize, identity: Identity, productId: string) {
  assertScanReachesProduct(identity, productId);
  const product = await findOwned(ProductModel, productId, identity.companyId, { what: 'Product' });
  const [[{ total }], locations, batches, itemsCount] = await Promise.all([
    sequelize.query<{ total: string }>('SELECT COALESCE(SUM(quantity), 0)::text AS total FROM stock_balances WHERE company_id = $1 AND product_id = $2', {
      bind: [identity.companyId, product.id],
      type: QueryTypes.SELECT,
    }),
    stockByLocation(sequelize, identity.companyId, [product.id]),
    product.profile === 'BATCH' ? stockedBatches(sequelize, identity.companyId, product.id) : undefined,
    product.profile === 'SERIALIZED' ? activeItemCount(sequelize, identity.companyId, product.id) : undefined,
  ]);
  return { product, total, locations, batches, itemsCount };
}

/**
 * The widget's product list (`GET /api/v1/widget/`) as one statement on plain pg: the company's name, its
 * active products with their stock (summed over all physical locations, or at `location_id`), and the
 * facts the route checks about `location_id` (whose it is, its type), in one round trip.
 *
 * Rows come as arrays (`WidgetProductRow`), in product order (by name). The company's name and the
 * location's facts are in the first row only (null in the others), so a long list does not build the same
 * strings a thousand times; a company without products, or a location that is not the caller's, still
 * gives that one row, with the product columns null. Quantities come as NUMERIC text, exactly what
 * `stock_display` formats. A QR scan's key lists only its target's product (`scope`: none for a VIRGIN code;
 * docs/api/scanning.md), in the same shape. With a barcode only the product with that GTIN is listed
 * (compared as GTIN-14, the expression of the barcode index, docs/api/barcodes-and-camera.md).
 */
import type { Sequelize } from 'sequelize';
import type { Profile } from '@pi/common';
import { runStatement, type Statement } from './client';

/** The join condition that keeps only the product with the barcode in parameter `$n`. */
const withBarcode = (n: number) => ` AND p.barcode IS NOT NULL AND lpad(p.barcode, 14, '0') = $${n}`;

/**
 * `$1` company, `$2` whether the list is a scan's, `$3` the scan's product (null: none), (`$4` barcode key).
 * Balances are summed per product before the join (one hash aggregate, no per-row subquery).
 */
const widgetProductsSql = (barcodeParam?: number) => `
SELECT CASE WHEN row_number() OVER products = 1 THEN c.name END AS company, NULL::uuid AS location_company_id, NULL::varchar AS location_type,
       p.id, p.name, p.sku, p.profile, p.unit, p.decimals, COALESCE(s.quantity, 0)::text AS quantity, p.barcode
  FROM companies c
  LEFT JOIN product_models p ON p.company_id = c.id AND p.is_active AND (NOT $2::boolean OR p.id = $3::uuid)${barcodeParam ? withBarcode(barcodeParam) : ''}
  LEFT JOIN (SELECT product_id, SUM(quantity) AS quantity FROM stock_balances WHERE company_id = $1 GROUP BY product_id) s
    ON s.product_id = p.id
 WHERE c.id = $1
WINDOW products AS (ORDER BY p.name, p.sku)
 ORDER BY p.name, p.sku`;

/**
 * `$1` company, `$2` location, `$3` and `$4` the scan scope as above, (`$5` barcode key): products are listed
 * only when the location is the company's and physical.
 */
const widgetProductsAtLocationSql = (barcodeParam?: number) => `
SELECT CASE WHEN row_number() OVER products = 1 THEN c.name END AS company,
       CASE WHEN row_number() OVER products = 1 THEN l.company_id END AS location_company_id,
       CASE WHEN row_number() OVER products = 1 THEN l.type END AS location_type,
       p.id, p.name, p.sku, p.profile, p.unit, p.decimals, COALESCE(s.quantity, 0)::text AS quantity, p.barcode
  FROM companies c
  LEFT JOIN locations l ON l.id = $2
  LEFT JOIN product_models p ON p.company_id = c.id AND p.is_active AND l.company_id = c.id AND l.type <> 'VIRTUAL'
        AND (NOT $3::boolean OR p.id = $4::uuid)${barcodeParam ? withBarcode(barcodeParam) : ''}
  LEFT JOIN (SELECT product_id, SUM(quantity) AS quantity FROM stock_balances WHERE company_id = $1 AND location_id = $2 GROUP BY product_id) s
    ON s.product_id = p.id
 WHERE c.id = $1
WINDOW products AS (ORDER BY p.name, p.sku)
 ORDER BY p.name, p.sku`;

export const WIDGET_PRODUCTS_SQL = widgetProductsSql();
export const WIDGET_PRODUCTS_AT_LOCATION_SQL = widgetProductsAtLocationSql();

/**
 * One row of the list. The first three columns are set in the first row only; the product columns are
 * null in the one row of a list without products. `location_company_id` is null also when no location
 * was asked for, or when it exists nowhere.
 */
export type WidgetProductRow = [
  company: string | null,
  locationCompanyId: string | null,
  locationType: string | null,
  id: string | null,
  name: string,
  sku: string,
  profile: Profile,
  unit: string,
  decimals: number,
  quantity: string,
  barcode: string | null,
];

const WIDGET_PRODUCTS_BY_BARCODE_SQL = widgetProductsSql(4);
const WIDGET_PRODUCTS_AT_LOCATION_BY_BARCODE_SQL = widgetProductsAtLocationSql(5);

/** A scan's product filter: `undefined` lists every product; a product id (or null, none) lists that one only. */
export type ProductScope = string | null | undefined;

/**
 * The statement for a company's list, at one location or over all of them (what the benchmark runs too);
 * `scope` keeps a scan's product only, `barcodeKey` (a GTIN-14) only the product with that barcode.
 */
export function widgetProductsStatement(companyId: string, locationId?: string, scope?: ProductScope, barcodeKey?: string): Statement {
  const scoping = [scope !== undefined, scope ?? null];
  if (barcodeKey) {
    return locationId
      ? {
          name: 'widget_products_at_location_by_barcode',
          text: WIDGET_PRODUCTS_AT_LOCATION_BY_BARCODE_SQL,
          values: [companyId, locationId, ...scoping, barcodeKey],
          rowMode: 'array',
        }
      : { name: 'widget_products_by_barcode', text: WIDGET_PRODUCTS_BY_BARCODE_SQL, values: [companyId, ...scoping, barcodeKey], rowMode: 'array' };
  }
  return locationId
    ? { name: 'widget_products_at_location', text: WIDGET_PRODUCTS_AT_LOCATION_SQL, values: [companyId, locationId, ...scoping], rowMode: 'array' }
    : { name: 'widget_products', text: WIDGET_PRODUCTS_SQL, values: [companyId, ...scoping], rowMode: 'array' };
}

export async function widgetProductRows(
  sequelize: Sequelize,
  companyId: string,
  locationId?: string,
  scope?: ProductScope,
  barcodeKey?: string,
): Promise<WidgetProductRow[]> {
  return (await runStatement<WidgetProductRow>(sequelize, widgetProductsStatement(companyId, locationId, scope, barcodeKey), { reads: true })).rows;
}

/**
 * The widget's product list (`GET /api/v1/widget/`) as one statement on plain pg: the company's name, its
 * active products with their stock (summed over all physical locations, or at `location_id`), and the
 * facts the route checks about `location_id` (whose it is, its type), in one round trip.
 *
 * Rows come as arrays (`WidgetProductRow`), in product order (by name). The company's name and the
 * location's facts are in the first row only (null in the others), so a long list does not build the same
 * strings a thousand times; a company without products, or a location that is not the caller's, still
 * gives that one row, with the product columns null. Quantities come as NUMERIC text, exactly what
 * `stock_display` formats. With a barcode only the product with that GTIN is listed (compared as GTIN-14,
 * the expression of the barcode index, docs/api/barcodes-and-camera.md). The statement is exported (`widgetProductsStatement`) so that the benchmark
 * (`bench/`) runs the very same query as its raw baseline.
 */
import type { Sequelize } from 'sequelize';
import type { Profile } from '@pi/common';
import { runStatement, type Statement } from './client';

/** The join condition that keeps only the product with the barcode in parameter `$n`. */
const withBarcode = (n: number) => ` AND p.barcode IS NOT NULL AND lpad(p.barcode, 14, '0') = $${n}`;

/** `$1` company (`$2` barcode key). Balances are summed per product before the join (one hash aggregate, no per-row subquery). */
const widgetProductsSql = (barcodeParam?: number) => `
SELECT CASE WHEN row_number() OVER products = 1 THEN c.name END AS company, NULL::uuid AS location_company_id, NULL::varchar AS location_type,
       p.id, p.name, p.sku, p.profile, p.unit, p.decimals, COALESCE(s.quantity, 0)::text AS quantity, p.barcode
  FROM companies c
  LEFT JOIN product_models p ON p.company_id = c.id AND p.is_active${barcodeParam ? withBarcode(barcodeParam) : ''}
  LEFT JOIN (SELECT product_id, SUM(quantity) AS quantity FROM stock_balances WHERE company_id = $1 GROUP BY product_id) s
    ON s.product_id = p.id
 WHERE c.id = $1
WINDOW products AS (ORDER BY p.name, p.sku)
 ORDER BY p.name, p.sku`;

export const WIDGET_PRODUCTS_SQL = widgetProductsSql();

/** `$1` company, `$2` location (`$3` barcode key): products are listed only when the location is the company's and physical. */
const widgetProductsAtLocationSql = (barcodeParam?: number) => `
SELECT CASE WHEN row_number() OVER products = 1 THEN c.name END AS company,
       CASE WHEN row_number() OVER products = 1 THEN l.company_id END AS location_company_id,
       CASE WHEN row_number() OVER products = 1 THEN l.type END AS location_type,
       p.id, p.name, p.sku, p.profile, p.unit, p.decimals, COALESCE(s.quantity, 0)::text AS quantity, p.barcode
  FROM companies c
  LEFT JOIN locations l ON l.id = $2
  LEFT JOIN product_models p ON p.company_id = c.id AND p.is_active AND l.company_id = c.id AND l.type <> 'VIRTUAL'${barcodeParam ? withBarcode(barcodeParam) : ''}
  LEFT JOIN (SELECT product_id, SUM(quantity) AS quantity FROM stock_balances WHERE company_id = $1 AND location_id = $2 GROUP BY product_id) s
    ON s.product_id = p.id
 WHERE c.id = $1
WINDOW products AS (ORDER BY p.name, p.sku)
 ORDER BY p.name, p.sku`;

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

const WIDGET_PRODUCTS_BY_BARCODE_SQL = widgetProductsSql(2);
const WIDGET_PRODUCTS_AT_LOCATION_BY_BARCODE_SQL = widgetProductsAtLocationSql(3);

/**
 * The statement for a company's list, at one location or over all of them (what the benchmark runs too);
 * `barcodeKey` (a GTIN-14) keeps only the product with that barcode.
 */
export function widgetProductsStatement(companyId: string, locationId?: string, barcodeKey?: string): Statement {
  if (barcodeKey) {
    return locationId
      ? { name: 'widget_products_at_location_by_barcode', text: WIDGET_PRODUCTS_AT_LOCATION_BY_BARCODE_SQL, values: [companyId, locationId, barcodeKey], rowMode: 'array' }
      : { name: 'widget_products_by_barcode', text: WIDGET_PRODUCTS_BY_BARCODE_SQL, values: [companyId, barcodeKey], rowMode: 'array' };
  }
  return locationId
    ? { name: 'widget_products_at_location', text: WIDGET_PRODUCTS_AT_LOCATION_SQL, values: [companyId, locationId], rowMode: 'array' }
    : { name: 'widget_products', text: WIDGET_PRODUCTS_SQL, values: [companyId], rowMode: 'array' };
}

export async function widgetProductRows(sequelize: Sequelize, companyId: string, locationId?: string, barcodeKey?: string): Promise<WidgetProductRow[]> {
  return (await runStatement<WidgetProductRow>(sequelize, widgetProductsStatement(companyId, locationId, barcodeKey), { reads: true })).rows;
}

/**
 * The widget's product list (`GET /api/v1/widget/`) as one statement on plain pg: the company's name, its
 * active products with their stock (summed over all physical locations, or at `location_id`), and the
 * facts the route checks about `location_id` (whose it is, its type), in one round trip.
 *
 * Every row carries the company's name (and the location's facts); a company without products, or a
 * location that is not the caller's, still gives one row, with the product columns null. Quantities come
 * as NUMERIC text, exactly what `stock_display` formats. The statement text is exported so that the
 * benchmark (`bench/`) can run the very same query as its raw baseline.
 */
import type { Sequelize } from 'sequelize';
import { runStatement, type Statement } from './client';

/** `$1` company. Balances are summed per product before the join (one hash aggregate, no per-row subquery). */
export const WIDGET_PRODUCTS_SQL = `
SELECT c.name AS company, NULL::uuid AS location_company_id, NULL::varchar AS location_type,
       p.id, p.name, p.sku, p.profile, p.unit, p.decimals, COALESCE(s.quantity, 0)::text AS quantity
  FROM companies c
  LEFT JOIN product_models p ON p.company_id = c.id AND p.is_active
  LEFT JOIN (SELECT product_id, SUM(quantity) AS quantity FROM stock_balances WHERE company_id = $1 GROUP BY product_id) s
    ON s.product_id = p.id
 WHERE c.id = $1
 ORDER BY p.name, p.sku`;

/** `$1` company, `$2` location: products are listed only when the location is the company's and physical. */
export const WIDGET_PRODUCTS_AT_LOCATION_SQL = `
SELECT c.name AS company, l.company_id AS location_company_id, l.type AS location_type,
       p.id, p.name, p.sku, p.profile, p.unit, p.decimals, COALESCE(s.quantity, 0)::text AS quantity
  FROM companies c
  LEFT JOIN locations l ON l.id = $2
  LEFT JOIN product_models p ON p.company_id = c.id AND p.is_active AND l.company_id = c.id AND l.type <> 'VIRTUAL'
  LEFT JOIN (SELECT product_id, SUM(quantity) AS quantity FROM stock_balances WHERE company_id = $1 AND location_id = $2 GROUP BY product_id) s
    ON s.product_id = p.id
 WHERE c.id = $1
 ORDER BY p.name, p.sku`;

export interface WidgetProductRow {
  company: string;
  /** Null when no location was asked for, or when it exists nowhere. */
  location_company_id: string | null;
  location_type: string | null;
  /** The product columns are null in the one row of a list without products. */
  id: string | null;
  name: string;
  sku: string;
  profile: string;
  unit: string;
  decimals: number;
  quantity: string;
}

/** The statement for a company's list, at one location or over all of them (what the benchmark runs too). */
export function widgetProductsStatement(companyId: string, locationId?: string): Statement {
  return locationId
    ? { name: 'widget_products_at_location', text: WIDGET_PRODUCTS_AT_LOCATION_SQL, values: [companyId, locationId] }
    : { name: 'widget_products', text: WIDGET_PRODUCTS_SQL, values: [companyId] };
}

export async function widgetProductRows(sequelize: Sequelize, companyId: string, locationId?: string): Promise<WidgetProductRow[]> {
  return (await runStatement<WidgetProductRow>(sequelize, widgetProductsStatement(companyId, locationId))).rows;
}

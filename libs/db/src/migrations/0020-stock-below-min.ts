/**
 * The `below_min` filter of `GET /api/v1/stock/` (docs/api/overview-and-appearance.md): only products whose
 * engine config sets a `min_stock` can be below it, so a partial index lists a company's such products and
 * the filter sums the balances (stock_balances_company_product_idx) of those alone.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`CREATE INDEX product_models_company_min_stock_idx ON product_models (company_id, id) WHERE engine_config ? 'min_stock';`);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql('DROP INDEX IF EXISTS product_models_company_min_stock_idx;');
};

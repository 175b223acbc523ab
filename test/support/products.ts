/** Direct reads of stored product models, for tests that check what a request did (or did not) change. */
import { count, row } from './sql';

export const productCount = (companyId: string) => count('SELECT count(*) FROM product_models WHERE company_id = $1', [companyId]);

/** Every stored column of a product, to show that a refused request changed nothing. */
export const readProduct = (id: string) =>
  row(
    'SELECT company_id, sku, name, description, profile, engine_config, unit, decimals, is_active, created_at, updated_at FROM product_models WHERE id = $1',
    [id],
  );

/** Direct reads of the ledger and balances, for tests that check what a request did (or did not) book. */
import { count, row } from './sql';

export const movementCount = (companyId: string) => count('SELECT count(*) FROM stock_movements WHERE company_id = $1', [companyId]);

/** Stock of a product at a location (all batches) from the balances. */
export async function balanceOf(productId: string, locationId: string): Promise<number> {
  return Number(
    (await row<{ q: string }>('SELECT COALESCE(SUM(quantity), 0) AS q FROM stock_balances WHERE product_id = $1 AND location_id = $2', [productId, locationId]))
      .q,
  );
}

/** Stock of a product at a location recomputed from the ledger alone. */
export async function ledgerStockOf(productId: string, locationId: string): Promise<number> {
  const { q } = await row<{ q: string }>(
    `SELECT COALESCE(SUM(CASE WHEN to_location_id = $2 THEN quantity ELSE 0 END), 0)
          - COALESCE(SUM(CASE WHEN from_location_id = $2 THEN quantity ELSE 0 END), 0) AS q
       FROM stock_movements WHERE product_id = $1 AND (to_location_id = $2 OR from_location_id = $2)`,
    [productId, locationId],
  );
  return Number(q);
}

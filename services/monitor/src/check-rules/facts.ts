/**
 * What evaluation needs about a company, in a fixed number of queries whatever its size: products with
 * their total physical stock, batches with remaining stock, and the live (OPEN or IGNORED) events.
 */
import { QueryTypes, Sequelize } from 'sequelize';
import type { LiveEvent, ProductFacts } from './evaluate';

export async function productFacts(sequelize: Sequelize, companyId: string): Promise<ProductFacts[]> {
  const [products, batches] = await Promise.all([
    sequelize.query<Omit<ProductFacts, 'batches'>>(
      `SELECT p.id, p.sku, p.name, p.unit, p.decimals, COALESCE(s.quantity, 0)::text AS quantity
         FROM product_models p
         LEFT JOIN (SELECT product_id, SUM(quantity) AS quantity FROM stock_balances WHERE company_id = $1 GROUP BY product_id) s
           ON s.product_id = p.id
        WHERE p.company_id = $1 AND p.is_active
        ORDER BY p.id`,
      { bind: [companyId], type: QueryTypes.SELECT },
    ),
    sequelize.query<{ product_id: string; id: string; code: string; expirationDate: string | null; quantity: string }>(
      `SELECT b.product_id, b.id, b.code, b.expiration_date::text AS "expirationDate", SUM(sb.quantity)::text AS quantity
         FROM batches b JOIN stock_balances sb ON sb.batch_id = b.id
        WHERE b.company_id = $1
        GROUP BY b.id HAVING SUM(sb.quantity) > 0`,
      { bind: [companyId], type: QueryTypes.SELECT },
    ),
  ]);
  const byProduct = new Map<string, ProductFacts['batches']>();
  for (const b of batches) {
    const list = byProduct.get(b.product_id) ?? [];
    list.push({ id: b.id, code: b.code, expirationDate: b.expirationDate, quantity: b.quantity });
    byProduct.set(b.product_id, list);
  }
  return products.map((p) => ({ ...p, batches: byProduct.get(p.id) ?? [] }));
}

export async function liveEvents(sequelize: Sequelize, companyId: string): Promise<Map<string, LiveEvent[]>> {
  const rows = await sequelize.query<LiveEvent & { productId: string }>(
    `SELECT id, rule_id AS "ruleId", batch_id AS "batchId", status, product_id AS "productId"
       FROM event_log WHERE company_id = $1 AND status IN ('OPEN', 'IGNORED')`,
    { bind: [companyId], type: QueryTypes.SELECT },
  );
  const byProduct = new Map<string, LiveEvent[]>();
  for (const e of rows) {
    const list = byProduct.get(e.productId) ?? [];
    list.push(e);
    byProduct.set(e.productId, list);
  }
  return byProduct;
}

export async function companiesToCheck(sequelize: Sequelize, companyId?: string): Promise<string[]> {
  const rows = await sequelize.query<{ id: string }>(`SELECT id FROM companies ${companyId ? 'WHERE id = $1' : ''} ORDER BY created_at, id`, {
    bind: companyId ? [companyId] : [],
    type: QueryTypes.SELECT,
  });
  return rows.map((r) => r.id);
}

'use strict';
/**
 * The SQL of the raw baselines, in one place: what PostgreSQL alone must do for each scenario, sent by the
 * benchmark on plain `pg` against the same tables as the system.
 *
 * The widget list's query is the one services/inventory sends today (commands/stock-levels.ts,
 * `productsWithStock`). When the inventory exports its SQL text from one module, point `WIDGET_LIST_SQL` at
 * that export instead of this copy (see `widgetListSql` below): the baseline then follows the query as it
 * changes.
 */

/** The minimal booking: BEGIN; a conditional UPDATE of one balance; the ledger INSERT; COMMIT (4 round trips). */
const BOOKING = {
  begin: 'BEGIN',
  take: {
    name: 'bench-take',
    text: `UPDATE stock_balances SET quantity = quantity - $3::numeric, updated_at = now()
            WHERE product_id = $1 AND location_id = $2 AND batch_id IS NULL AND quantity >= $3::numeric`,
  },
  append: {
    name: 'bench-append',
    text: `INSERT INTO stock_movements (company_id, product_id, kind, from_location_id, to_location_id, quantity, reason, actor_kind, actor_id)
           VALUES ($1, $2, 'SUBTRACT', $3, $4, $5::numeric, 'bench raw', 'api_key', $6)`,
  },
  commit: 'COMMIT',
};

/** Today's widget list query (the company's active products with their summed stock), $1 company, $2 location or null. */
const WIDGET_LIST_SQL = `SELECT p.id, p.sku, p.name, p.profile, p.engine_config->>'engine_type' AS engine_type, p.unit, p.decimals,
            COALESCE(s.quantity, 0)::text AS quantity
       FROM product_models p
       LEFT JOIN (SELECT product_id, SUM(quantity) AS quantity FROM stock_balances
                   WHERE company_id = $1 AND ($2::uuid IS NULL OR location_id = $2::uuid)
                   GROUP BY product_id) s ON s.product_id = p.id
      WHERE p.company_id = $1 AND p.is_active
      ORDER BY p.name, p.sku`;

/** The query the widget-list baselines run (one place to switch to the inventory's exported text). */
function widgetListSql() {
  return WIDGET_LIST_SQL;
}

/** One minimal booking of `quantity` on (product, location): throws when the balance does not cover it. */
async function bookRaw(client, { companyId, productId, locationId, outboundId, actorId, quantity = 1 }) {
  await client.query(BOOKING.begin);
  const taken = await client.query({ ...BOOKING.take, values: [productId, locationId, quantity] });
  if (taken.rowCount !== 1) throw new Error(`raw booking: no stock left on ${productId} at ${locationId}`);
  await client.query({ ...BOOKING.append, values: [companyId, productId, locationId, outboundId, quantity, actorId] });
  await client.query(BOOKING.commit);
}

module.exports = { BOOKING, WIDGET_LIST_SQL, widgetListSql, bookRaw };

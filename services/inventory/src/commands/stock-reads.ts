/**
 * Read-side queries over the balances: remaining quantities of batches, and the widget's record lists. Each is
 * one SQL statement whatever the number of rows (no query per row); callers check ownership of the ids they
 * pass before calling.
 */
import { QueryTypes } from 'sequelize';
import type { Identity } from '@pi/common';
import type { InventoryContext } from '../context';

/** Remaining quantity (NUMERIC string) of each batch: SUM of its balance rows. Batches without rows are absent. */
export async function batchQuantities(ctx: InventoryContext, companyId: string, batchIds: string[]): Promise<Map<string, string>> {
  const { sequelize } = ctx;
  if (batchIds.length === 0) return new Map();
  const rows = await sequelize.query<{ batch_id: string; quantity: string }>(
    `SELECT batch_id, SUM(quantity) AS quantity
       FROM stock_balances
      WHERE company_id = $1 AND batch_id = ANY($2::uuid[])
      GROUP BY batch_id`,
    { bind: [companyId, batchIds], type: QueryTypes.SELECT },
  );
  return new Map(rows.map((r) => [r.batch_id, r.quantity]));
}

export interface WidgetItemRow {
  id: string;
  serial_number: string;
  location_id: string;
  location_name: string;
}

/** Active items of a product, optionally at one location, with their location's name. */
export function activeItems(ctx: InventoryContext, identity: Identity, productId: string, locationId?: string): Promise<WidgetItemRow[]> {
  const { sequelize } = ctx;
  const bind: unknown[] = [identity.companyId, productId];
  let atLocation = '';
  if (locationId) {
    bind.push(locationId);
    atLocation = `AND i.location_id = $${bind.length}`;
  }
  return sequelize.query<WidgetItemRow>(
    `SELECT i.id, i.serial_number, i.location_id, l.name AS location_name
       FROM physical_items i
       JOIN locations l ON l.id = i.location_id
      WHERE i.company_id = $1 AND i.product_id = $2 AND i.is_active AND l.type <> 'VIRTUAL' ${atLocation}
      ORDER BY i.serial_number, i.id`,
    { bind, type: QueryTypes.SELECT },
  );
}

export interface StockedBatchRow {
  id: string;
  code: string;
  expirationDate: string | null;
  quantity: string;
  unit: string;
  decimals: number;
}

/**
 * Batches of a product with remaining stock, earliest expiry first (no expiry last), then by code; with
 * `locationId`, the batches with stock at that location and their quantity there (what a booking there can take).
 */
export function stockedBatches(ctx: InventoryContext, identity: Identity, productId: string, locationId?: string): Promise<StockedBatchRow[]> {
  const { sequelize } = ctx;
  return sequelize.query<StockedBatchRow>(
    `SELECT b.id, b.code, b.expiration_date::text AS "expirationDate", SUM(s.quantity) AS quantity, p.unit, p.decimals
       FROM batches b
       JOIN product_models p ON p.id = b.product_id
       JOIN stock_balances s ON s.batch_id = b.id AND s.company_id = b.company_id AND ($3::uuid IS NULL OR s.location_id = $3::uuid)
      WHERE b.company_id = $1 AND b.product_id = $2
      GROUP BY b.id, p.id
     HAVING SUM(s.quantity) > 0
      ORDER BY b.expiration_date ASC NULLS LAST, b.code, b.id`,
    { bind: [identity.companyId, productId, locationId ?? null], type: QueryTypes.SELECT },
  );
}

export interface LocationStockRow {
  id: string;
  sku: string;
  name: string;
  quantity: string;
  unit: string;
  decimals: number;
}

/**
 * Products with stock at one location (all batches together), by name. `scope` (a QR scan's product, or null
 * for none; docs/api/scanning.md) narrows the list to that product.
 */
export function stockAtLocation(ctx: InventoryContext, identity: Identity, locationId: string, scope?: string | null): Promise<LocationStockRow[]> {
  const { sequelize } = ctx;
  return sequelize.query<LocationStockRow>(
    `SELECT p.id, p.sku, p.name, p.unit, p.decimals, SUM(s.quantity) AS quantity
       FROM stock_balances s
       JOIN product_models p ON p.id = s.product_id
      WHERE s.company_id = $1 AND s.location_id = $2 AND (NOT $3::boolean OR s.product_id = $4::uuid)
      GROUP BY p.id
     HAVING SUM(s.quantity) <> 0
      ORDER BY p.name, p.sku, p.id`,
    { bind: [identity.companyId, locationId, scope !== undefined, scope ?? null], type: QueryTypes.SELECT },
  );
}

/** Appending to the ledger. Nothing else writes stock_movements, and nothing ever updates it. */
import { QueryTypes } from 'sequelize';
import type { BookingContext, MovementInput, Tx } from './context';

export interface MovementRow {
  id: string;
  seq: string | number;
  company_id: string;
  product_id: string;
  kind: string;
  from_location_id: string;
  to_location_id: string;
  quantity: string;
  batch_id: string | null;
  item_ids: string[] | null;
  reason: string;
  actor_kind: string;
  actor_id: string;
  request_id: string | null;
  /** A Date as Sequelize reads it; ISO 8601 text (UTC, milliseconds) in a booking read back as JSON. */
  created_at: Date | string;
}

export async function appendMovement(ctx: BookingContext, transaction: Tx, m: MovementInput): Promise<MovementRow> {
  const [row] = await ctx.sequelize.query<MovementRow>(
    `INSERT INTO stock_movements
       (company_id, product_id, kind, from_location_id, to_location_id, quantity, batch_id, item_ids, reason, actor_kind, actor_id, request_id)
     VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8::uuid[], $9, $10, $11, $12)
     RETURNING *`,
    {
      bind: [
        ctx.identity.companyId,
        m.productId,
        m.kind,
        m.fromLocationId,
        m.toLocationId,
        m.quantity,
        m.batchId ?? null,
        m.itemIds ?? null,
        m.reason,
        ctx.identity.principal.kind,
        ctx.identity.principal.id,
        ctx.requestId || null,
      ],
      transaction,
      type: QueryTypes.SELECT,
    },
  );
  return row;
}

/** One ledger row per part (a batch and its quantity), in the parts' order, in one statement. */
export async function appendMovements(
  ctx: BookingContext,
  transaction: Tx,
  m: Omit<MovementInput, 'quantity' | 'batchId' | 'itemIds'>,
  parts: Array<{ batchId: string | null; quantity: string }>,
): Promise<MovementRow[]> {
  const rows = await ctx.sequelize.query<MovementRow>(
    `INSERT INTO stock_movements
       (company_id, product_id, kind, from_location_id, to_location_id, quantity, batch_id, reason, actor_kind, actor_id, request_id)
     SELECT $1, $2, $3, $4, $5, p.quantity, p.batch_id, $6, $7, $8, $9
       FROM unnest($10::uuid[], $11::numeric[]) WITH ORDINALITY AS p(batch_id, quantity, n)
      ORDER BY p.n
     RETURNING *`,
    {
      bind: [
        ctx.identity.companyId,
        m.productId,
        m.kind,
        m.fromLocationId,
        m.toLocationId,
        m.reason,
        ctx.identity.principal.kind,
        ctx.identity.principal.id,
        ctx.requestId || null,
        parts.map((p) => p.batchId),
        parts.map((p) => p.quantity),
      ],
      transaction,
      type: QueryTypes.SELECT,
    },
  );
  // The sequence is taken in insertion order, which is the parts' order.
  return rows.sort((a, b) => Number(a.seq) - Number(b.seq));
}

/**
 * Many additions from the company's Inbound in one go, for the opening-stock import: the same ledger rows and
 * balances as one `bookIn` per line (ledger/book.ts), in three statements however many lines there are. Line
 * by line, an import made three round trips a line (lock, balance, ledger row): a 3,000-line file took 3.3–3.6 s
 * against 0.42–0.45 s now (docs/operations/benchmarks.md, "What each optimisation gained").
 */
import type { MovementKind, ProductModel } from '@pi/common';
import { QueryTypes } from 'sequelize';
import { NewBatchRef, findOrCreateBatch } from './batches';
import type { BookingContext, Tx } from './context';
import { lockStockPairs } from './locks';
import type { MovementRow } from './movements';
import { systemLocations } from './targets';

/** One addition: quantity as NUMERIC text with the product's decimals; a BATCH product's batch by code. */
export interface InLine {
  product: ProductModel;
  locationId: string;
  batch?: NewBatchRef;
  quantity: string;
  reason: string;
}

/**
 * Each line's batch id (null without one), each distinct (product, code, expiration date) found or made once:
 * a line naming a code with another product or another date is checked by `findOrCreateBatch` as `bookIn`
 * would check it, and fails with `refused(error, index of the line)`.
 */
async function batchIdsOf(ctx: BookingContext, tx: Tx, lines: InLine[], refused: (err: unknown, line: number) => unknown): Promise<Array<string | null>> {
  const found = new Map<string, string>();
  const ids: Array<string | null> = [];
  for (const [i, line] of lines.entries()) {
    if (!line.batch) {
      ids.push(null);
      continue;
    }
    const key = JSON.stringify([line.product.id, line.batch.code, line.batch.expiration_date ?? null]);
    let id = found.get(key);
    if (!id) {
      try {
        id = (await findOrCreateBatch(ctx, tx, line.product, line.batch)).id;
      } catch (err) {
        throw refused(err, i);
      }
      found.set(key, id);
    }
    ids.push(id);
  }
  return ids;
}

/**
 * Books `lines` as `kind` from the company's Inbound; answers their ledger rows, in the lines' order. As
 * `bookIn` does, it takes the stock locks (ledger/locks.ts) before it makes any batch: a booking that holds
 * one of them may be making the same batch.
 */
export async function bookInMany(
  ctx: BookingContext,
  tx: Tx,
  lines: InLine[],
  kind: MovementKind,
  refused: (err: unknown, line: number) => unknown = (err) => err,
): Promise<MovementRow[]> {
  if (!lines.length) return [];
  const { companyId, principal } = ctx.identity;
  const { inbound } = await systemLocations(companyId, tx);
  await lockStockPairs(
    ctx.sequelize,
    tx,
    lines.map((l) => ({ productId: l.product.id, locationId: l.locationId })),
  );
  const columns = [lines.map((l) => l.product.id), lines.map((l) => l.locationId), await batchIdsOf(ctx, tx, lines, refused), lines.map((l) => l.quantity)];
  // One upsert a balance: ON CONFLICT may not touch a row twice in one statement, so lines are summed first.
  await ctx.sequelize.query(
    `INSERT INTO stock_balances (company_id, product_id, location_id, batch_id, quantity)
     SELECT $1, l.product_id, l.location_id, l.batch_id, SUM(l.quantity)
       FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::numeric[]) AS l(product_id, location_id, batch_id, quantity)
      GROUP BY l.product_id, l.location_id, l.batch_id
     ON CONFLICT ON CONSTRAINT stock_balances_key
     DO UPDATE SET quantity = stock_balances.quantity + EXCLUDED.quantity, updated_at = now()`,
    { bind: [companyId, ...columns], transaction: tx },
  );
  return ctx.sequelize.query<MovementRow>(
    `INSERT INTO stock_movements
       (company_id, product_id, kind, from_location_id, to_location_id, quantity, batch_id, reason, actor_kind, actor_id, request_id)
     SELECT $1, l.product_id, $6, $7, l.location_id, l.quantity, l.batch_id, l.reason, $8, $9, $10
       FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::numeric[], $11::text[]) WITH ORDINALITY AS l(product_id, location_id, batch_id, quantity, reason, n)
      ORDER BY l.n
     RETURNING *`,
    {
      bind: [companyId, ...columns, kind, inbound, principal.kind, principal.id, ctx.requestId || null, lines.map((l) => l.reason)],
      transaction: tx,
      type: QueryTypes.SELECT,
    },
  );
}

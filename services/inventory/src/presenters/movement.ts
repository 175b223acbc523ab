import { toNumber } from '../engine/quantity';
import type { MovementRow } from '../ledger/movements';

/** A ledger entry. `seq` is the server's order of the ledger. */
export function presentMovement(m: MovementRow) {
  return {
    id: m.id,
    seq: Number(m.seq),
    kind: m.kind,
    product_id: m.product_id,
    from_location_id: m.from_location_id,
    to_location_id: m.to_location_id,
    quantity: toNumber(m.quantity),
    batch_id: m.batch_id,
    item_ids: m.item_ids,
    reason: m.reason,
    actor: { kind: m.actor_kind, id: m.actor_id },
    request_id: m.request_id,
    created_at: m.created_at,
  };
}

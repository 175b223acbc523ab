/**
 * Booking requests as the API receives them, turned into ledger orders, booked by the ledger's one entry
 * point (once per Idempotency-Key) and answered by the booking presenters with the new stock. A QR scan's
 * key books only its target's product, and only as its policy allows (docs/api/scanning.md).
 */
import { assertScanMayBook } from '@pi/common';
import type { Identity } from '@pi/common';
import type { InventoryContext } from '../context';
import type { BookedStock, BookingOutcome, IdempotencyClaim, InRequest, OutRequest, CountRequest, TransferRequest } from '../ledger/types';
import type { BookingContext } from '../ledger/context';
import { runBooking } from '../ledger/run-booking';
import { presentMoveResult, presentMovementResult, presentTransactionResult, presentTransferResult } from '../presenters/movement';

/** What a booking route sends: its status, its body, and whether it is a replay of an earlier answer. */
export interface BookingAnswer {
  status: number;
  body: unknown;
  replayed: boolean;
}

/**
 * The request a write comes from (a booking, an import, a creation): its id (recorded with a booking's movements)
 * and its Idempotency-Key, if any.
 */
export interface RequestOrigin {
  requestId: string;
  idempotency?: IdempotencyClaim;
}

/** What the ledger books with: the service's database and counter, and who books for which request. */
export function ledgerContext({ sequelize, bookings }: InventoryContext, identity: Identity, requestId: string): BookingContext {
  return { sequelize, identity, requestId, metrics: bookings };
}

function answer(outcome: BookingOutcome, present: (booked: BookedStock) => unknown): BookingAnswer {
  const body = 'booked' in outcome ? present(outcome.booked) : outcome.legacyBody;
  return { status: outcome.status, body, replayed: outcome.replayed };
}

export type TransactionRequest = InRequest & OutRequest & CountRequest & { operation: 'add' | 'subtract' | 'set'; location_id: string };

/** `POST /api/v1/widget/{id}/transaction/`: add, subtract, or set (count) stock at one location. */
export async function bookTransaction(
  ctx: InventoryContext,
  identity: Identity,
  productId: string,
  req: TransactionRequest,
  origin: RequestOrigin,
): Promise<BookingAnswer> {
  assertScanMayBook(identity, productId);
  const locationId = req.location_id;
  const order =
    req.operation === 'add'
      ? ({ op: 'in', kind: 'ADD', productId, locationId, details: req } as const)
      : req.operation === 'subtract'
        ? ({ op: 'out', kind: 'SUBTRACT', productId, locationId, details: req } as const)
        : ({ op: 'count', productId, locationId, details: req } as const);
  return answer(await runBooking(ledgerContext(ctx, identity, origin.requestId), order, 200, origin.idempotency), (booked) =>
    presentTransactionResult(req.operation, booked),
  );
}

export type SignedMoveRequest = Omit<InRequest & OutRequest, 'quantity'> & { product_id: string; location_id: string; quantity: number };

/** `POST /api/v1/widget/move/`: the sign of `quantity` is the direction (positive inbound, negative outbound). */
export async function bookSignedMove(ctx: InventoryContext, identity: Identity, req: SignedMoveRequest, origin: RequestOrigin): Promise<BookingAnswer> {
  assertScanMayBook(identity, req.product_id);
  const inbound = req.quantity > 0;
  const base = { productId: req.product_id, locationId: req.location_id, details: { ...req, quantity: Math.abs(req.quantity) } };
  const order = inbound ? ({ op: 'in', kind: 'MOVE_IN', ...base } as const) : ({ op: 'out', kind: 'MOVE_OUT', ...base } as const);
  return answer(await runBooking(ledgerContext(ctx, identity, origin.requestId), order, 200, origin.idempotency), (booked) =>
    presentMoveResult(inbound ? 'in' : 'out', booked),
  );
}

export type TransferStockRequest = TransferRequest & { product_id: string; from_location_id: string; to_location_id: string };

/** `POST /api/v1/widget/transfer/`: between two distinct active physical locations. */
export async function bookTransfer(ctx: InventoryContext, identity: Identity, req: TransferStockRequest, origin: RequestOrigin): Promise<BookingAnswer> {
  assertScanMayBook(identity, req.product_id);
  const order = { op: 'transfer', productId: req.product_id, fromId: req.from_location_id, toId: req.to_location_id, details: req } as const;
  return answer(await runBooking(ledgerContext(ctx, identity, origin.requestId), order, 200, origin.idempotency), presentTransferResult);
}

export type CoreMovementRequest = InRequest & OutRequest & { product_id: string; from_location_id: string; to_location_id: string };

/**
 * `POST /api/v1/movements/`: a movement between two locations. From the company's Inbound it is an
 * addition, to its Outbound a subtraction, between two physical locations a transfer.
 */
export async function bookCoreMovement(ctx: InventoryContext, identity: Identity, req: CoreMovementRequest, origin: RequestOrigin): Promise<BookingAnswer> {
  const order = { op: 'core', productId: req.product_id, fromId: req.from_location_id, toId: req.to_location_id, details: req } as const;
  return answer(await runBooking(ledgerContext(ctx, identity, origin.requestId), order, 201, origin.idempotency), presentMovementResult);
}

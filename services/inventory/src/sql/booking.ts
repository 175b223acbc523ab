/**
 * A booking of a STANDARD or DIMENSIONAL product as one statement: `ledger_book(...)` (migration
 * 0009-booking-statement) claims the Idempotency-Key, checks the product and locations, locks, books,
 * reads the new totals and stores the result for replays, all on the server. The stock lock is held only
 * while the server runs it and is released by the statement's own commit.
 *
 * BATCH and SERIALIZED products are refused with `GeneralBookingNeeded` before anything is written; their
 * bookings run as a transaction of several statements (ledger/general-booking.ts). The function's other
 * refusals (SQLSTATE IV001, reason and JSON facts) become the same errors that path throws
 * (ledger/errors.ts).
 */
import { AccessDeniedError, NotFoundError, currentDeadline } from '@pi/common';
import { precisionError } from '../engine/quantity';
import type { BookingContext } from '../ledger/context';
import {
  InsufficientStockError,
  idempotencyKeyReused,
  inactiveLocation,
  inactiveProduct,
  quantityRequired,
  sameLocation,
  stockChanged,
  virtualLocation,
} from '../ledger/errors';
import { locationField, type BookedStock, type BookingOrder, type BookingOutcome, type IdempotencyClaim } from '../ledger/types';
import { runStatement, serverErrorOf } from './client';

/** `ledger_book` bounded by the time the request has left (migration 0014-booking-deadline). */
const LEDGER_BOOK = {
  name: 'ledger_book_within',
  text: 'SELECT replayed, status, booking, legacy_body FROM ledger_book_within($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)',
};

/** The product books through the transaction of several statements (BATCH, SERIALIZED). */
export class GeneralBookingNeeded extends Error {
  constructor(readonly productId: string) {
    super('this product books through the general path');
  }
}

interface LedgerBookRow {
  replayed: boolean;
  status: number;
  booking: BookedStock | null;
  legacy_body: string | null;
}

const decimal = (value: number | undefined) => (value === undefined ? null : String(value));

/** `ledger_book`'s op, kind, from, to, quantity and expected quantity for an order. */
function operands(order: Exclude<BookingOrder, { op: 'item' }>): [string, string | null, string | null, string | null, string | null, string | null] {
  switch (order.op) {
    case 'in':
      return ['in', order.kind, null, order.locationId, decimal(order.details.quantity), null];
    case 'out':
      return ['out', order.kind, order.locationId, null, decimal(order.details.quantity), null];
    case 'count':
      return ['count', 'ADJUST', null, order.locationId, decimal(order.details.quantity), decimal(order.details.expected_quantity)];
    case 'transfer':
      return ['transfer', 'TRANSFER', order.fromId, order.toId, decimal(order.details.quantity), null];
    case 'core':
      return ['core', null, order.fromId, order.toId, decimal(order.details.quantity), null];
  }
}

type Facts = Record<string, string | number | undefined>;

/** The API's error for a refusal of `ledger_book`; undefined for any other error. */
function refusal(err: unknown, order: BookingOrder): Error | undefined {
  const server = serverErrorOf(err);
  if (server?.code !== 'IV001') return undefined;
  const facts = JSON.parse(server.detail || '{}') as Facts;
  const field = () => locationField(order, facts.side as 'from' | 'to');
  switch (server.message) {
    case 'general_booking':
      return new GeneralBookingNeeded(order.productId);
    case 'not_found':
      return new NotFoundError(`${facts.what} not found.`);
    case 'access_denied':
      return new AccessDeniedError();
    case 'inactive_product':
      return inactiveProduct();
    case 'virtual_location':
      return virtualLocation(field());
    case 'inactive_location':
      return inactiveLocation(field());
    case 'same_location':
      return sameLocation();
    case 'quantity_required':
      return quantityRequired(String(facts.field));
    case 'precision':
      return precisionError(String(facts.field), Number(facts.decimals));
    case 'insufficient_stock':
      return new InsufficientStockError(String(facts.available), String(facts.requested), String(facts.location_id));
    case 'stock_changed':
      return stockChanged(String(facts.expected), String(facts.current));
    case 'idempotency_key_reused':
      return idempotencyKeyReused();
    default:
      return new Error(`ledger_book refused with an unknown reason: ${server.message}`);
  }
}

/** Books `order` in one statement; `status` is the HTTP status its answer will have (kept for replays). */
export async function bookInOneStatement(
  ctx: BookingContext,
  order: Exclude<BookingOrder, { op: 'item' }>,
  status: number,
  idem?: IdempotencyClaim,
): Promise<BookingOutcome> {
  const [op, kind, from, to, quantity, expected] = operands(order);
  const { companyId, principal } = ctx.identity;
  const deadline = currentDeadline();
  const values = [
    companyId,
    order.productId,
    op,
    kind,
    from,
    to,
    quantity,
    expected,
    order.details.reason,
    principal.kind,
    principal.id,
    ctx.requestId || null,
    idem?.key ?? null,
    idem?.fingerprint ?? null,
    status,
  ];
  let row: LedgerBookRow;
  try {
    const timeLeft = () => (deadline ? Math.max(1, Math.floor(deadline.remainingMs())) : null);
    [row] = (await runStatement<LedgerBookRow>(ctx.sequelize, () => ({ ...LEDGER_BOOK, values: [timeLeft(), ...values] }))).rows;
  } catch (err) {
    throw refusal(err, order) ?? err;
  }
  if (row.booking) return { replayed: row.replayed, status: row.status, booked: row.booking };
  return { replayed: true, status: row.status, legacyBody: JSON.parse(row.legacy_body ?? 'null') };
}

/**
 * The one entry point of every booking (`runBooking`): it runs the booking in a statement or transaction
 * of its own, once per Idempotency-Key, and retries it on a deadlock or serialization failure.
 *
 * STANDARD and DIMENSIONAL products, the frequent case, book in one statement (sql/booking.ts). BATCH and
 * SERIALIZED ones book in a transaction of several statements (ledger/general-booking.ts): the statement
 * refuses them before writing anything, and the product is remembered here so that its next bookings go
 * straight to the transaction. A profile never changes once a product has stock movements, and the
 * transaction books any profile, so the memory is only a shortcut and never decides what is right.
 */
import { bookInOneStatement, GeneralBookingNeeded } from '../sql/booking';
import { serverErrorOf } from '../sql/client';
import type { BookingContext } from './context';
import { bookInTransaction } from './general-booking';
import type { BookingOrder, BookingOutcome, IdempotencyClaim } from './types';

const RETRYABLE = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 4;

/** Products known to book through the transaction (bounded: forgetting one costs one round trip). */
const generalProducts = new Set<string>();
const MAX_REMEMBERED = 10_000;

function rememberGeneral(productId: string) {
  if (generalProducts.size >= MAX_REMEMBERED) generalProducts.clear();
  generalProducts.add(productId);
}

async function bookOnce(ctx: BookingContext, order: BookingOrder, status: number, idem?: IdempotencyClaim): Promise<BookingOutcome> {
  const productId = order.productId.toLowerCase();
  if (order.op !== 'item' && !generalProducts.has(productId)) {
    try {
      return await bookInOneStatement(ctx, order, status, idem);
    } catch (err) {
      if (!(err instanceof GeneralBookingNeeded)) throw err;
      rememberGeneral(productId);
    }
  }
  return bookInTransaction(ctx, order, status, idem);
}

/** Books `order`; `status` is the HTTP status of its answer, which a replay answers again. Counted by outcome. */
export async function runBooking(ctx: BookingContext, order: BookingOrder, status: number, idem?: IdempotencyClaim): Promise<BookingOutcome> {
  try {
    const outcome = await bookRetrying(ctx, order, status, idem);
    ctx.metrics?.booked(order, outcome);
    return outcome;
  } catch (err) {
    ctx.metrics?.refused(order, err);
    throw err;
  }
}

async function bookRetrying(ctx: BookingContext, order: BookingOrder, status: number, idem?: IdempotencyClaim): Promise<BookingOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await bookOnce(ctx, order, status, idem);
    } catch (err) {
      const code = serverErrorOf(err)?.code;
      if (attempt < MAX_ATTEMPTS && code && RETRYABLE.has(code)) continue;
      throw err;
    }
  }
}

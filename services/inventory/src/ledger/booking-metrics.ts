/**
 * The bookings counter (docs/operations/metrics.md): `inventory_bookings_total{kind, outcome}`, counted at
 * the ledger's one entry point (run-booking.ts), so every way of booking is counted once whatever route it
 * came through. `kind` says what was booked, `outcome` how it ended: `booked`, `replayed` (an Idempotency-Key
 * answered again, nothing booked), or the error code of a refusal (`insufficient_stock`, `validation_error`,
 * …; `error` for a failure with no code). No company or product is a label: the numbers are the service's.
 */
import { Counter } from 'prom-client';
import { type MetricsRegistry, toAppError } from '@pi/common';
import type { BookingOrder, BookingOutcome } from './types';

export const BOOKINGS_METRIC = 'inventory_bookings_total';

export type BookingKind = 'add' | 'subtract' | 'move_in' | 'move_out' | 'set' | 'transfer' | 'movement' | 'item';

export function bookingKindOf(order: BookingOrder): BookingKind {
  switch (order.op) {
    case 'in':
      return order.kind === 'ADD' ? 'add' : 'move_in';
    case 'out':
      return order.kind === 'SUBTRACT' ? 'subtract' : 'move_out';
    case 'count':
      return 'set';
    case 'transfer':
      return 'transfer';
    case 'core':
      return 'movement';
    case 'item':
      return 'item';
  }
}

export class BookingMetrics {
  private readonly bookings: Counter<'kind' | 'outcome'>;

  constructor(registry: MetricsRegistry) {
    this.bookings = new Counter({
      name: BOOKINGS_METRIC,
      help: 'Bookings (stock additions, subtractions, moves, counts, transfers, movements, new items) by kind and outcome.',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    });
  }

  booked(order: BookingOrder, outcome: BookingOutcome): void {
    this.bookings.inc({ kind: bookingKindOf(order), outcome: outcome.replayed ? 'replayed' : 'booked' });
  }

  refused(order: BookingOrder, err: unknown): void {
    this.bookings.inc({ kind: bookingKindOf(order), outcome: toAppError(err)?.code ?? 'error' });
  }
}

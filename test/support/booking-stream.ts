/**
 * Bookings streamed through a fault by a few clients, each booking with an `Idempotency-Key` of its own, and
 * what a client does afterwards (docs/api/deadlines-and-retries.md): a booking first answered 503 is sent again
 * with its key. The fault suites (test/e2e/faults) check that every first answer is one a client can act on,
 * and that each retry books what was not booked, once.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { ApiResponse } from './api';
import { sleep } from './wait';

/** What a booking sends: POST `path` with `body`. */
export interface BookingRequest {
  path: string;
  body: Record<string, unknown>;
}

/** A booking as it was streamed: its key and every answer it got, the first one first. */
export type KeyedBooking<T extends BookingRequest> = T & { key: string; answers: ApiResponse[] };

export type SendBooking = (booking: KeyedBooking<BookingRequest>) => Promise<ApiResponse>;

/** The 503s whose booking may be sent again with its key. */
const RETRYABLE_CODES = ['service_unavailable', 'outcome_unknown'];

/** `clients` clients sending the bookings `next` makes (by number) one after another, until `stop()`. */
export class BookingStream<T extends BookingRequest> {
  readonly sent: Array<KeyedBooking<T>> = [];
  private stopped = false;
  private readonly clients: Array<Promise<void>>;

  constructor(
    private readonly send: SendBooking,
    private readonly next: (n: number) => T,
    clients: number,
    /** A pause after a 503, as a client backs off. */
    private readonly backOffMs = 0,
  ) {
    this.clients = Array.from({ length: clients }, () => this.client());
  }

  /** The bookings answered so far, in the order they were sent. */
  answered(): Array<KeyedBooking<T>> {
    return this.sent.filter((booking) => booking.answers.length > 0);
  }

  /** Stops the clients once their bookings in flight are answered; every booking sent. */
  async stop(): Promise<Array<KeyedBooking<T>>> {
    this.stopped = true;
    await Promise.all(this.clients);
    return this.sent;
  }

  private async client(): Promise<void> {
    while (!this.stopped) {
      const booking: KeyedBooking<T> = { ...this.next(this.sent.length), key: randomUUID(), answers: [] };
      this.sent.push(booking);
      booking.answers.push(await this.send(booking));
      if (booking.answers[0].status === 503 && this.backOffMs) await sleep(this.backOffMs);
    }
  }
}

/** A booking's answers in words: `200, 503 outcome_unknown`. */
export const answersOf = (booking: KeyedBooking<BookingRequest>) =>
  booking.answers.map((a) => `${a.status}${a.status >= 400 ? ` ${a.body?.code}` : ''}`).join(', ');

/** The bookings whose first answer was neither 200 nor a 503 to retry, described by their path and answers. */
export function unexpectedFirstAnswers(sent: Array<KeyedBooking<BookingRequest>>): string[] {
  return sent
    .filter(({ answers: [first] }) => !(first.status === 200 || (first.status === 503 && RETRYABLE_CODES.includes(first.body?.code))))
    .map((booking) => `${booking.path}: ${answersOf(booking)}`);
}

/**
 * Sends each of `refused` (bookings first answered 503) again with its key, once, adding the answer to its
 * answers. Each retry must answer 200: booked now, or the booking its first attempt made.
 */
export async function retryWithTheirKeys(refused: Array<KeyedBooking<BookingRequest>>, send: SendBooking): Promise<void> {
  for (const booking of refused) {
    const retry = await send(booking);
    expect(retry.status, `the retry of ${booking.path} (${answersOf(booking)}): ${JSON.stringify(retry.body)}`).to.equal(200);
    booking.answers.push(retry);
  }
}

/** The retried bookings' outcome in words, for the suite's log line. */
export function describeRetries(sent: Array<KeyedBooking<BookingRequest>>, refused: Array<KeyedBooking<BookingRequest>>): string {
  const unknown = refused.filter((booking) => booking.answers[0].body?.code === 'outcome_unknown').length;
  const replayed = refused.filter((booking) => booking.answers[1].headers.get('idempotent-replayed') === 'true').length;
  return `${sent.length} bookings; ${refused.length} answered 503 (${unknown} outcome_unknown), of which ${replayed} had been booked: their retry answered that booking`;
}

/** What every booking route takes from the request besides its body: who books, and an idempotency key. */
import type { Request, Response } from 'express';
import { ValidationError, requestIdOf } from '@pi/common';
import type { BookingAnswer, BookingOrigin } from '../commands/bookings';
import { fingerprintOf } from '../ledger/idempotency';
import type { IdempotencyClaim } from '../ledger/types';

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/** Which request a booking comes from: its id and its Idempotency-Key. */
export function bookingOrigin(req: Request): BookingOrigin {
  return { requestId: requestIdOf(req), idempotency: idempotencyClaim(req) };
}

/** The `Idempotency-Key` header, if any, with the request's fingerprint. */
export function idempotencyClaim(req: Request): IdempotencyClaim | undefined {
  const key = req.get('idempotency-key');
  if (key === undefined) return undefined;
  if (!KEY_SHAPE.test(key)) throw new ValidationError({ 'Idempotency-Key': 'must be 1 to 255 visible ASCII characters' });
  return { key, fingerprint: fingerprintOf(req.method, req.path, req.body) };
}

export function sendBooking(res: Response, answer: BookingAnswer): void {
  if (answer.replayed) res.setHeader('Idempotent-Replayed', 'true');
  res.status(answer.status).json(answer.body);
}

/** What every booking (and import, and creation) route takes from the request besides its body: its id, and an idempotency key. */
import type { Request, Response } from 'express';
import { ValidationError, requestIdOf } from '@pi/common';
import type { BookingAnswer, RequestOrigin } from '../commands/bookings';
import { fingerprintOf, type KeyedAnswer } from '../ledger/idempotency';
import type { IdempotencyClaim } from '../ledger/types';

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * Which request a write (a booking, an import, a creation) comes from: its id and its Idempotency-Key.
 * `settings` are query parameters that change what the write does (an import's `update_existing`): they are
 * part of the key's fingerprint, so that a key's request sent with other settings is refused (409).
 */
export function requestOrigin(req: Request, settings?: Record<string, unknown>): RequestOrigin {
  return { requestId: requestIdOf(req), idempotency: idempotencyClaim(req, settings) };
}

/** The `Idempotency-Key` header, if any, with the request's fingerprint. */
export function idempotencyClaim(req: Request, settings?: Record<string, unknown>): IdempotencyClaim | undefined {
  const key = req.get('idempotency-key');
  if (key === undefined) return undefined;
  if (!KEY_SHAPE.test(key)) throw new ValidationError({ 'Idempotency-Key': 'must be 1 to 255 visible ASCII characters' });
  return { key, fingerprint: fingerprintOf(req.method, req.path, settings === undefined ? req.body : [req.body, settings]) };
}

export function sendBooking(res: Response, answer: BookingAnswer): void {
  res.status(answer.status).json(keyedBody(res, answer));
}

/** The body of an answer made under an Idempotency-Key, the response saying `Idempotent-Replayed: true` when it is a stored one. */
export function keyedBody<T>(res: Response, answer: KeyedAnswer<T>): T {
  if (answer.replayed) res.setHeader('Idempotent-Replayed', 'true');
  return answer.body;
}

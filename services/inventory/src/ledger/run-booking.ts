/**
 * The transaction around a booking. With an `Idempotency-Key`, the key is claimed inside the same
 * transaction as the booking: a retry with the same key and body gets the first answer and books nothing; a
 * concurrent retry waits for the first to commit (the key's primary key makes it wait) and then replays it;
 * the same key with another body is 409. If the booking fails, the claim rolls back with it, so a failed
 * request can be retried with the same key. Deadlocks and serialization failures are retried.
 */
import { createHash } from 'node:crypto';
import { QueryTypes, Transaction } from 'sequelize';
import { ConflictError } from '@pi/common';
import type { BookingContext } from './context';

export interface IdempotencyClaim {
  key: string;
  /** Method, path and body of the request, canonicalised. */
  fingerprint: string;
}

export interface BookingAnswer {
  status: number;
  body: unknown;
  replayed: boolean;
}

const RETRYABLE = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 4;

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value as object).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

export function fingerprintOf(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(JSON.stringify([method, path, canonical(body)])).digest('hex');
}

async function claim(ctx: BookingContext, transaction: Transaction, idem: IdempotencyClaim): Promise<BookingAnswer | undefined> {
  const inserted = await ctx.sequelize.query(
    `INSERT INTO idempotency_keys (company_id, key, fingerprint) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING key`,
    { bind: [ctx.identity.companyId, idem.key, idem.fingerprint], transaction, type: QueryTypes.SELECT },
  );
  if (inserted.length) return undefined;
  const [first] = await ctx.sequelize.query<{ fingerprint: string; response_status: number; response_body: string }>(
    'SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE company_id = $1 AND key = $2',
    { bind: [ctx.identity.companyId, idem.key], transaction, type: QueryTypes.SELECT },
  );
  if (first.fingerprint !== idem.fingerprint) {
    throw new ConflictError('idempotency_key_reused', 'This Idempotency-Key was used with another request.', { 'Idempotency-Key': 'was used with another request' });
  }
  // Stored as text, not jsonb, so a replay is the first answer byte for byte (jsonb reorders keys).
  return { status: first.response_status, body: JSON.parse(first.response_body), replayed: true };
}

async function remember(ctx: BookingContext, transaction: Transaction, idem: IdempotencyClaim, status: number, body: unknown) {
  await ctx.sequelize.query('UPDATE idempotency_keys SET response_status = $3, response_body = $4 WHERE company_id = $1 AND key = $2', {
    bind: [ctx.identity.companyId, idem.key, status, JSON.stringify(body)],
    transaction,
  });
}

/** Runs `book` in a transaction (once per idempotency key) and answers `{status, body}`. */
export async function runBooking(
  ctx: BookingContext,
  idem: IdempotencyClaim | undefined,
  book: (transaction: Transaction) => Promise<{ status: number; body: unknown }>,
): Promise<BookingAnswer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.sequelize.transaction(async (transaction) => {
        const earlier = idem ? await claim(ctx, transaction, idem) : undefined;
        if (earlier) return earlier;
        const answer = await book(transaction);
        if (idem) await remember(ctx, transaction, idem, answer.status, answer.body);
        return { ...answer, replayed: false };
      });
    } catch (err) {
      const code = (err as { parent?: { code?: string } }).parent?.code;
      if (attempt < MAX_ATTEMPTS && code && RETRYABLE.has(code)) continue;
      throw err;
    }
  }
}

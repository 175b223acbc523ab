/**
 * `Idempotency-Key` on booking endpoints. The key is claimed in the booking's own transaction (or
 * statement): a retry with the same key and request answers the first booking again and books nothing; a
 * concurrent retry waits for the first to commit (the key's primary key makes it wait) and then replays
 * it; the same key with another request is 409. A failed booking rolls its claim back, so a refused
 * request can be retried with the same key. This module holds the fingerprint and the claim as the
 * general path makes it; `ledger_book` (sql/booking.ts) makes the same claim inside its statement.
 * Imports and the creations a retry would make twice take keys the same way (`answerOncePerKey`,
 * docs/decisions/0004-idempotent-bookings.md), storing their whole answer instead of a booking.
 */
import { createHash } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { BookingContext, Tx } from './context';
import { idempotencyKeyReused } from './errors';
import type { BookedStock, BookingOutcome, IdempotencyClaim } from './types';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Method, path and body of a request, canonicalised and hashed. */
export function fingerprintOf(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([method, path, canonical(body)]))
    .digest('hex');
}

interface StoredKey {
  fingerprint: string;
  response_status: number;
  booking: string | null;
  response_body: string | null;
}

/** Claims the key in `transaction`; answers the stored outcome when the key was used before. */
export async function claimKey(ctx: BookingContext, transaction: Tx, idem: IdempotencyClaim): Promise<BookingOutcome | undefined> {
  const inserted = await ctx.sequelize.query(
    'INSERT INTO idempotency_keys (company_id, key, fingerprint) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING key',
    { bind: [ctx.identity.companyId, idem.key, idem.fingerprint], transaction, type: QueryTypes.SELECT },
  );
  if (inserted.length) return undefined;
  const [first] = await ctx.sequelize.query<StoredKey>(
    'SELECT fingerprint, response_status, booking, response_body FROM idempotency_keys WHERE company_id = $1 AND key = $2',
    { bind: [ctx.identity.companyId, idem.key], transaction, type: QueryTypes.SELECT },
  );
  if (first.fingerprint !== idem.fingerprint) throw idempotencyKeyReused();
  // Stored as text, not jsonb, so the stored booking is read back exactly as it was written.
  if (first.booking !== null) return { replayed: true, status: first.response_status, booked: JSON.parse(first.booking) as BookedStock };
  return { replayed: true, status: first.response_status, legacyBody: JSON.parse(first.response_body ?? 'null') };
}

/** Stores what the booking answered with its key, in the booking's transaction. */
export async function rememberBooking(ctx: BookingContext, transaction: Tx, idem: IdempotencyClaim, status: number, booked: BookedStock): Promise<void> {
  await ctx.sequelize.query('UPDATE idempotency_keys SET response_status = $3, booking = $4 WHERE company_id = $1 AND key = $2', {
    bind: [ctx.identity.companyId, idem.key, status, JSON.stringify(booked)],
    transaction,
  });
}

/**
 * Every keyed write that is not a booking answers 201 when it writes (the imports and the creations), and its
 * stored answer is replayed with 201 too; the status is stored for the key's row all the same.
 */
const KEYED_WRITE_STATUS = 201;

/**
 * Stores an answer that is not one booking (an import's or a creation's) with its key, in the
 * transaction that made it; a retry with the key answers it again through `claimKey` (as `legacyBody`).
 */
async function rememberAnswer(ctx: BookingContext, transaction: Tx, idem: IdempotencyClaim, body: unknown): Promise<void> {
  await ctx.sequelize.query('UPDATE idempotency_keys SET response_status = $3, response_body = $4 WHERE company_id = $1 AND key = $2', {
    bind: [ctx.identity.companyId, idem.key, KEYED_WRITE_STATUS, JSON.stringify(body)],
    transaction,
  });
}

/** An answer made under an Idempotency-Key: this request's own, or (`replayed`) the one an earlier request got. */
export interface KeyedAnswer<T> {
  replayed: boolean;
  body: T;
}

/**
 * Runs `write` in `transaction` once per Idempotency-Key, for an operation whose answer is not one booking:
 * the imports (docs/api/spreadsheets.md) and the creations of locations and work orders. The key is claimed
 * before anything is read, so a retry sent while the first is under way waits for it; a retry of one that
 * committed answers its stored answer again and writes nothing. `write`'s answer, as the client receives it,
 * is stored with the key. A refusal rolls the claim back with the rest. Without a key, `write` just runs.
 */
export async function answerOncePerKey<T>(
  ctx: BookingContext,
  transaction: Tx,
  idem: IdempotencyClaim | undefined,
  write: () => Promise<T>,
): Promise<KeyedAnswer<T>> {
  const earlier = idem && (await claimKey(ctx, transaction, idem));
  if (earlier) {
    // Only such an operation stores its whole answer; a key a booking spent is another request's.
    if (!('legacyBody' in earlier)) throw idempotencyKeyReused();
    return { replayed: true, body: earlier.legacyBody as T };
  }
  const body = await write();
  if (idem) await rememberAnswer(ctx, transaction, idem, body);
  return { replayed: false, body };
}

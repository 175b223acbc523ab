/**
 * The attempt log of a delivery, written around the send so that no row lock and no database connection is
 * held while a receiver answers (docs/api/monitoring-and-notifications.md "Delivery guarantees"):
 *
 * 1. claim (one short transaction, the channel row locked, then the delivery row with SKIP LOCKED): the attempt row is written as
 *    STARTED, the delivery's `attempts` counts it, and its `next_attempt_at` becomes the attempt's lease
 *    (start + ATTEMPT_LEASE_MS). While the lease runs, nobody else claims the delivery.
 * 2. the send, with no transaction open;
 * 3. record (another short transaction): the attempt becomes SUCCEEDED or FAILED and the delivery moves on.
 *    It only closes an attempt that is still STARTED, so a late record never overwrites what a takeover wrote.
 *
 * A STARTED attempt whose lease ran out belongs to a sender that died: the next claim records it as
 * INTERRUPTED, a failed attempt like any other (the next one is due 2^n × 60 s after it started; after
 * `max_attempts` the delivery is FAILED).
 */
import { QueryTypes, type Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { NotificationAttempt, NotificationDelivery } from '@pi/common/core';

export const INTERRUPTED_ERROR = 'interrupted: the sender stopped before the attempt finished; the receiver may or may not have it';

/** Delay before the next attempt after `attemptsMade` failed attempts: 2^n × 60 s (docs/api/monitoring-and-notifications.md). */
export function retryDelayMs(attemptsMade: number): number {
  return 2 ** attemptsMade * 60_000;
}

/** What happened to a delivery when an attempt ended. */
export type DeliveryMove = 'delivered' | 'retrying' | 'failed';

/** The delivery's next state after failed attempt `number` that started at `startedAt`. */
export function afterFailure(number: number, maxAttempts: number, startedAt: Date): { status: 'RETRYING' | 'FAILED'; nextAttemptAt?: Date } {
  if (number < maxAttempts) return { status: 'RETRYING', nextAttemptAt: new Date(startedAt.getTime() + retryDelayMs(number)) };
  return { status: 'FAILED' };
}

/** The attempt of `delivery` that is STARTED, if any. */
export function startedAttempt(deliveryId: string, transaction: Transaction): Promise<NotificationAttempt | null> {
  return NotificationAttempt.findOne({ where: { deliveryId, status: 'STARTED' }, transaction });
}

/**
 * Records a STARTED attempt whose lease ran out as INTERRUPTED and moves the (locked) delivery on by the retry
 * schedule. Answers the delivery's new state.
 */
export async function recordInterrupted(
  transaction: Transaction,
  delivery: NotificationDelivery,
  attempt: NotificationAttempt,
  now: Date,
): Promise<'retrying' | 'failed'> {
  await attempt.update({ status: 'INTERRUPTED', ok: false, error: INTERRUPTED_ERROR, finishedAt: now }, { transaction });
  const next = afterFailure(attempt.number, delivery.maxAttempts, attempt.startedAt);
  await delivery.update(
    { status: next.status, ...(next.nextAttemptAt ? { nextAttemptAt: next.nextAttemptAt } : {}), lastStatusCode: null, lastError: INTERRUPTED_ERROR },
    { transaction },
  );
  return next.status === 'FAILED' ? 'failed' : 'retrying';
}

/** Writes attempt `attempts + 1` as STARTED and leases the (locked) delivery until `leaseUntil`. */
export async function startAttempt(transaction: Transaction, delivery: NotificationDelivery, now: Date, leaseUntil: Date): Promise<NotificationAttempt> {
  const number = delivery.attempts + 1;
  const attempt = await NotificationAttempt.create(
    {
      companyId: delivery.companyId,
      deliveryId: delivery.id,
      number,
      status: 'STARTED',
      ok: false,
      statusCode: null,
      error: null,
      responseExcerpt: null,
      durationMs: 0,
      startedAt: now,
      finishedAt: null,
    },
    { transaction },
  );
  await delivery.update({ attempts: number, nextAttemptAt: leaseUntil }, { transaction });
  return attempt;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  /** Already cleaned of secrets and cut to the column's size. */
  error: string | null;
  responseExcerpt: string | null;
  durationMs: number;
}

/**
 * Closes a STARTED attempt with its result and moves its delivery on. Answers undefined, changing nothing, when
 * the attempt is no longer STARTED (a takeover recorded it as interrupted) or is gone with its delivery.
 */
export async function finishAttempt(
  sequelize: Sequelize,
  transaction: Transaction,
  attempt: { id: string; deliveryId: string; number: number; startedAt: Date },
  result: AttemptResult,
): Promise<DeliveryMove | undefined> {
  const finishedAt = new Date(attempt.startedAt.getTime() + result.durationMs);
  // The delivery, then the attempt, after the caller's lock on the channel: the order a claim locks them in.
  const delivery = await NotificationDelivery.findByPk(attempt.deliveryId, { transaction, lock: transaction.LOCK.UPDATE });
  if (!delivery || delivery.attempts !== attempt.number) return undefined;
  const [closed] = await sequelize.query<{ id: string }>(
    `UPDATE notification_attempts
        SET status = $2, ok = $3, status_code = $4, error = $5, response_excerpt = $6, duration_ms = $7, finished_at = $8
      WHERE id = $1 AND status = 'STARTED'
      RETURNING id`,
    {
      bind: [attempt.id, result.ok ? 'SUCCEEDED' : 'FAILED', result.ok, result.statusCode, result.error, result.responseExcerpt, result.durationMs, finishedAt],
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  if (!closed) return undefined;
  const changes: Partial<NotificationDelivery> = { lastStatusCode: result.statusCode, lastError: result.ok ? null : result.error };
  let move: DeliveryMove;
  if (result.ok) {
    move = 'delivered';
    Object.assign(changes, { status: 'DELIVERED', deliveredAt: attempt.startedAt });
  } else {
    const next = afterFailure(attempt.number, delivery.maxAttempts, attempt.startedAt);
    move = next.status === 'FAILED' ? 'failed' : 'retrying';
    Object.assign(changes, next);
  }
  await delivery.update(changes, { transaction });
  return move;
}

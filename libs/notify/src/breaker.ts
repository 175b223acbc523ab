/**
 * How channels are kept apart (docs/api/monitoring-and-notifications.md "Delivery guarantees"): a cap on the sends in flight to one channel, and a
 * circuit breaker per channel.
 *
 * - Cap: an attempt in flight is a STARTED attempt row whose lease (the delivery's `next_attempt_at` while it is
 *   claimed) has not run out. Claims of one channel are serialised by a short lock on the channel row, so every
 *   notifier together never has more than `CHANNEL_MAX_CONCURRENT_SENDS` sends in flight to it.
 * - Breaker: `CHANNEL_PAUSE_AFTER_FAILURES` failed attempts in a row (over any of its deliveries; a success
 *   resets the count) pause the channel. While paused its deliveries stay due and untouched (no attempt is
 *   spent), except one probe every `CHANNEL_PROBE_INTERVAL_MS` (half-open): a probe that succeeds closes the
 *   breaker, one that fails keeps it open. An admin can resume a channel at once (`closeBreaker`).
 *   An interrupted attempt (the notifier died) says nothing about the receiver and does not count.
 *
 * Every function here runs inside the caller's transaction.
 */
import { QueryTypes, type Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import type { DeliverySettings } from './settings';

export type ChannelLimits = Pick<DeliverySettings, 'CHANNEL_MAX_CONCURRENT_SENDS' | 'CHANNEL_PAUSE_AFTER_FAILURES' | 'CHANNEL_PROBE_INTERVAL_MS'>;

/** What a claim or a record needs to know of a channel, read with the channel row locked. */
export interface ChannelGateRow {
  id: string;
  company_id: string;
  is_active: boolean;
  paused_at: Date | null;
  next_probe_at: Date | null;
  consecutive_failures: number;
}

/**
 * The channel `idSql` names (with `$1`), locked for the rest of the transaction (NO KEY UPDATE: new deliveries
 * may still reference it). Every transaction that locks a channel and one of its deliveries takes the channel
 * first (a channel's delete cascades from it to its deliveries), so none waits for a channel while holding a
 * delivery that a delete of that channel waits for.
 */
async function lockChannelWhere(sequelize: Sequelize, transaction: Transaction, idSql: string, bind: string): Promise<ChannelGateRow | undefined> {
  const [row] = await sequelize.query<ChannelGateRow>(
    `SELECT id, company_id, is_active, paused_at, next_probe_at, consecutive_failures FROM notification_channels WHERE id = ${idSql} FOR NO KEY UPDATE`,
    { bind: [bind], type: QueryTypes.SELECT, transaction },
  );
  return row;
}

export const lockChannel = (sequelize: Sequelize, transaction: Transaction, channelId: string) => lockChannelWhere(sequelize, transaction, '$1', channelId);

/** The channel of a delivery, locked before the delivery itself is (see `lockChannelWhere`). */
export const lockChannelOfDelivery = (sequelize: Sequelize, transaction: Transaction, deliveryId: string) =>
  lockChannelWhere(sequelize, transaction, '(SELECT channel_id FROM notification_deliveries WHERE id = $1)', deliveryId);

/** Attempts in flight to the channel at `now`: STARTED, with their lease still running. */
export async function sendsInFlight(sequelize: Sequelize, transaction: Transaction, channelId: string, now: Date): Promise<number> {
  const [row] = await sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM notification_attempts a JOIN notification_deliveries d ON d.id = a.delivery_id
      WHERE a.status = 'STARTED' AND d.channel_id = $1 AND d.next_attempt_at > $2`,
    { bind: [channelId, now], type: QueryTypes.SELECT, transaction },
  );
  return row.n;
}

export type GateDecision = 'send' | 'probe' | 'deferred' | 'held';

/**
 * Whether an attempt to the (locked) channel may start now: `send`; `probe` (the channel is paused and this
 * attempt is its probe; the next probe is pushed back here); `deferred` (the channel is at its cap: try again
 * shortly); `held` (paused, no probe due: the delivery waits).
 */
export async function gateAttempt(
  sequelize: Sequelize,
  transaction: Transaction,
  channel: ChannelGateRow,
  limits: ChannelLimits,
  now: Date,
): Promise<GateDecision> {
  const inFlight = await sendsInFlight(sequelize, transaction, channel.id, now);
  if (channel.paused_at === null) return inFlight >= limits.CHANNEL_MAX_CONCURRENT_SENDS ? 'deferred' : 'send';
  if (inFlight > 0 || (channel.next_probe_at !== null && channel.next_probe_at.getTime() > now.getTime())) return 'held';
  await sequelize.query(`UPDATE notification_channels SET next_probe_at = $2 WHERE id = $1`, {
    bind: [channel.id, new Date(now.getTime() + limits.CHANNEL_PROBE_INTERVAL_MS)],
    transaction,
  });
  return 'probe';
}

export interface BreakerChange {
  /** The breaker opened with this attempt. */
  paused: boolean;
  /** The breaker closed with this attempt (a probe succeeded). */
  resumed: boolean;
  consecutiveFailures: number;
}

/**
 * Records an attempt's result on its channel: a success closes the breaker, a failure may open it. `before` is
 * the channel as the caller locked it (`lockChannel`), so concurrent results of one channel are counted one
 * after the other.
 */
export async function recordOnChannel(
  sequelize: Sequelize,
  transaction: Transaction,
  before: ChannelGateRow | undefined,
  result: { ok: boolean; error: string | null },
  limits: ChannelLimits,
  now: Date,
): Promise<BreakerChange> {
  if (!before) return { paused: false, resumed: false, consecutiveFailures: 0 }; // deleted meanwhile
  const channelId = before.id;
  const wasPaused = before.paused_at !== null;
  if (result.ok) {
    if (before.consecutive_failures !== 0 || wasPaused) await closeBreaker(sequelize, transaction, channelId);
    return { paused: false, resumed: wasPaused, consecutiveFailures: 0 };
  }
  const failures = before.consecutive_failures + 1;
  const opens = !wasPaused && failures >= limits.CHANNEL_PAUSE_AFTER_FAILURES;
  const reason = wasPaused || opens ? `${failures} failed attempts in a row; the last one: ${result.error ?? 'attempt failed'}`.slice(0, 1000) : null;
  await sequelize.query(
    `UPDATE notification_channels
        SET consecutive_failures = $2,
            paused_at = CASE WHEN $3 THEN $4 ELSE paused_at END,
            next_probe_at = CASE WHEN $3 THEN $5 ELSE next_probe_at END,
            paused_reason = COALESCE($6, paused_reason)
      WHERE id = $1`,
    { bind: [channelId, failures, opens, now, new Date(now.getTime() + limits.CHANNEL_PROBE_INTERVAL_MS), reason], transaction },
  );
  return { paused: opens, resumed: false, consecutiveFailures: failures };
}

/** Closes the breaker by hand (an admin's "resume"): the channel's due deliveries go out again. */
export async function closeBreaker(sequelize: Sequelize, transaction: Transaction, channelId: string): Promise<void> {
  await sequelize.query(
    `UPDATE notification_channels SET consecutive_failures = 0, paused_at = NULL, paused_reason = NULL, next_probe_at = NULL WHERE id = $1`,
    { bind: [channelId], transaction },
  );
}

/**
 * One delivery attempt, and dispatching due deliveries (docs/api/monitoring-and-notifications.md "Delivery guarantees"). The same code runs in the
 * notifier's queue worker and, without Redis, synchronously inside `check_rules` (standalone mode).
 *
 * An attempt is claim → send → record (attempt-log.ts), with no transaction open during the send:
 * - a delivery locked by another claim, gone, already finished or not yet due sends nothing ('skipped'), so a
 *   duplicated, late or early job is harmless; one whose attempt is in flight elsewhere is 'deferred' (its
 *   lease may run out: the job looks again shortly);
 * - a channel that is gone or inactive ends the delivery (FAILED) without sending and without retries;
 * - a channel at its cap of sends in flight defers the attempt; a paused channel holds it ('held': the
 *   delivery stays due, no attempt is spent) except for its probe (breaker.ts);
 * - otherwise it sends once and records the attempt (status code, truncated and redacted error and answer,
 *   timing): DELIVERED, RETRYING with the next attempt due 2^n × 60 s after the start of the n-th failure, or
 *   FAILED after `max_attempts` failures.
 * A process killed while sending leaves its attempt STARTED; once the lease runs out the next claim records it
 * as INTERRUPTED (a failed attempt). Delivery is at least once: receivers dedupe on `event_id`, also sent as
 * `X-PI-Event-Id`.
 *
 * All time arithmetic uses the `now` argument (never the database clock), so tests control the schedule.
 */
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { NotificationAttempt, NotificationChannel, NotificationDelivery, type Logger, withSpan } from '@pi/common/core';
import { AttemptResult, finishAttempt, recordInterrupted, startAttempt, startedAttempt } from './attempt-log';
import { gateAttempt, lockChannel, lockChannelOfDelivery, recordOnChannel } from './breaker';
import { createMailer, renderEventEmail, type Mailer } from './email';
import { parseEventBody } from './payload';
import type { DeliveryQueue } from './queue';
import { redactCutTail, redactSecrets } from './redact';
import { decryptSecret, parseEncryptionKey } from './secret-box';
import type { DeliverySettings } from './settings';
import { WEBHOOK_TIMEOUT_MS, sendWebhook } from './webhook';

/**
 * What became of the delivery: `delivered`, `retrying`, `failed` (an attempt was recorded, or an interrupted one
 * was); `skipped` (nothing to do: not due, finished, gone, or claimed by someone else right now); `deferred`
 * (its channel is at its cap, or its attempt is in flight elsewhere: look again shortly); `held` (its channel
 * is paused: the delivery stays due).
 */
export type AttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'skipped' | 'deferred' | 'held';
export const ATTEMPT_OUTCOMES: readonly AttemptOutcome[] = ['delivered', 'retrying', 'failed', 'skipped', 'deferred', 'held'];

/**
 * How long a claimed attempt may take before a takeover may record it as interrupted: the send deadline (10 s)
 * plus room for the record transaction. The notifier's job lock is tuned to the same deadline (worker.ts).
 */
export const ATTEMPT_LEASE_MARGIN_MS = 5_000;
export const ATTEMPT_LEASE_MS = WEBHOOK_TIMEOUT_MS + ATTEMPT_LEASE_MARGIN_MS;

export interface AttemptOptions {
  /** Where attempt outcomes (and console emails, when no mailer is given) are logged. */
  logger?: Logger;
  /** The email transport; default: one per settings object, from the settings. */
  mailer?: Mailer;
  /** Deadline of one send, webhook or email (default: the webhook sender's 10 s); the lease is 5 s longer. */
  webhookTimeoutMs?: number;
}

const deadlineOf = (opts: AttemptOptions) => opts.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS;
const leaseOf = (opts: AttemptOptions) => deadlineOf(opts) + ATTEMPT_LEASE_MARGIN_MS;

/** The send's result, or a failure once `ms` have passed (an SMTP server can take longer than a webhook may). */
function withDeadline(sending: Promise<SendResult>, ms: number): Promise<SendResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<SendResult>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, error: `timed out after ${ms} ms`, durationMs: ms }), ms + 250);
  });
  return Promise.race([sending, late]).finally(() => clearTimeout(timer));
}

/** Column limits of notification_attempts / notification_deliveries. */
const ERROR_MAX = 1000;
const EXCERPT_MAX = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface SendResult {
  ok: boolean;
  statusCode?: number;
  error?: string;
  responseExcerpt?: string;
  durationMs: number;
}

/** Removes every secret, and what PostgreSQL cannot store (NUL), then cuts to `max` characters. */
function clean(text: string | undefined, secrets: string[], max: number): string | null {
  if (text === undefined || text === null) return null;
  // eslint-disable-next-line no-control-regex -- NUL is the character PostgreSQL cannot store in text
  const out = redactSecrets(String(text).replace(/\u0000/g, ''), secrets);
  if (out.length <= max) return out;
  // The cut may have left the start of a secret at the end: never keep a tail that begins one.
  return `${redactCutTail(out.slice(0, max - 12), secrets)}…`;
}

const defaultMailers = new WeakMap<object, WeakMap<object, Mailer>>();
const NO_LOGGER = {};

function mailerFor(settings: DeliverySettings, opts: AttemptOptions): Mailer {
  if (opts.mailer) return opts.mailer;
  const loggerKey = opts.logger ?? NO_LOGGER;
  let byLogger = defaultMailers.get(settings);
  if (!byLogger) defaultMailers.set(settings, (byLogger = new WeakMap()));
  let mailer = byLogger.get(loggerKey);
  if (!mailer) byLogger.set(loggerKey, (mailer = createMailer(settings, { logger: opts.logger })));
  return mailer;
}

function eventIdOf(delivery: NotificationDelivery): string | undefined {
  if (delivery.eventId) return delivery.eventId;
  try {
    return parseEventBody(delivery.payload).event_id;
  } catch {
    return undefined;
  }
}

async function send(
  channel: NotificationChannel,
  delivery: NotificationDelivery,
  settings: DeliverySettings,
  opts: AttemptOptions,
  secrets: string[],
): Promise<SendResult> {
  if (channel.kind === 'WEBHOOK') {
    let secret: string;
    try {
      secret = decryptSecret(channel.secretEncrypted, parseEncryptionKey(settings.SECRET_ENCRYPTION_KEY));
    } catch {
      return { ok: false, error: 'channel secret could not be decrypted (check SECRET_ENCRYPTION_KEY)', durationMs: 0 };
    }
    secrets.push(secret);
    return sendWebhook({
      url: channel.url ?? '',
      body: delivery.payload,
      secret,
      allowLoopback: settings.ALLOW_LOOPBACK_WEBHOOKS,
      eventId: eventIdOf(delivery),
      ...(opts.webhookTimeoutMs !== undefined ? { timeoutMs: opts.webhookTimeoutMs } : {}),
    });
  }
  if (channel.kind === 'EMAIL') {
    const recipients = (channel.recipients ?? []).filter((r) => typeof r === 'string' && r !== '');
    if (recipients.length === 0) return { ok: false, error: 'channel has no recipients', durationMs: 0 };
    let rendered;
    try {
      rendered = renderEventEmail(parseEventBody(delivery.payload));
    } catch {
      return { ok: false, error: 'stored notification body could not be read', durationMs: 0 };
    }
    return mailerFor(settings, opts).send({ to: recipients, ...rendered });
  }
  return { ok: false, error: `unknown channel kind ${String(channel.kind)}`, durationMs: 0 };
}

/**
 * Makes the due attempt of one delivery, if it is due and no one else holds it (see the module header).
 * Answers what became of the delivery; throws only when the database fails (the job is then retried).
 */
export async function attemptDelivery(
  sequelize: Sequelize,
  deliveryId: string,
  settings: DeliverySettings,
  now: Date = new Date(),
  opts: AttemptOptions = {},
): Promise<AttemptOutcome> {
  return (await attemptDeliveryReport(sequelize, deliveryId, settings, now, opts)).outcome;
}

/** What an attempt did, and on which channel (the queue worker wakes a deferred job of it when a send ends). */
export interface AttemptReport {
  outcome: AttemptOutcome;
  /** Known once the delivery was read. */
  channelId?: string;
}

/** `attemptDelivery`, also naming the channel. */
export async function attemptDeliveryReport(
  sequelize: Sequelize,
  deliveryId: string,
  settings: DeliverySettings,
  now: Date = new Date(),
  opts: AttemptOptions = {},
): Promise<AttemptReport> {
  if (typeof deliveryId !== 'string' || !UUID.test(deliveryId)) return { outcome: 'skipped' };
  const claim = await claimAttempt(sequelize, deliveryId, settings, now, opts);
  if (claim.kind === 'done') return { outcome: claim.outcome, channelId: claim.channelId };
  const outcome = await sendAndRecord(sequelize, claim, settings, now, opts);
  return { outcome, channelId: claim.channel.id };
}

async function sendAndRecord(
  sequelize: Sequelize,
  claim: Extract<Claim, { kind: 'send' }>,
  settings: DeliverySettings,
  now: Date,
  opts: AttemptOptions,
): Promise<AttemptOutcome> {
  const { delivery, channel, attempt, probe } = claim;
  const deliveryId = delivery.id;
  const logger = opts.logger;

  // Every value that must never be stored or logged; the plain channel secret joins once decrypted.
  const secrets = [channel.secretEncrypted, settings.SECRET_ENCRYPTION_KEY, settings.EMAIL_HOST_PASSWORD];
  let sent: SendResult;
  try {
    // The delivery's span (docs/operations/tracing.md): a child of the queue job's, so of the request or run that created it.
    const attributes = { 'pi.delivery.id': deliveryId, 'pi.channel.id': channel.id, 'pi.channel.kind': channel.kind, 'pi.delivery.attempt': attempt.number };
    sent = await withSpan(`${channel.kind === 'EMAIL' ? 'email' : 'webhook'} delivery`, { kind: 'client', attributes }, async (span) => {
      const result = await withDeadline(send(channel, delivery, settings, opts, secrets), deadlineOf(opts));
      span.setAttributes({ 'pi.delivery.ok': result.ok, ...(result.statusCode ? { 'http.response.status_code': result.statusCode } : {}) });
      return result;
    });
  } catch (err) {
    // The senders resolve with failures; this is a programming error, recorded as a failed attempt.
    sent = { ok: false, error: `send failed: ${(err as Error).message}`, durationMs: 0 };
  }
  const result: AttemptResult = {
    ok: sent.ok,
    statusCode: sent.statusCode ?? null,
    error: sent.ok && !sent.error ? null : clean(sent.error ?? 'attempt failed', secrets, ERROR_MAX),
    responseExcerpt: clean(sent.responseExcerpt, secrets, EXCERPT_MAX),
    durationMs: Math.max(0, Math.round(sent.durationMs ?? 0)),
  };

  const recorded = await sequelize.transaction(async (transaction) => {
    const locked = await lockChannel(sequelize, transaction, channel.id); // the channel before the delivery, as the claim (breaker.ts)
    const move = await finishAttempt(sequelize, transaction, attempt, result);
    if (move === undefined) return undefined;
    const breaker = await recordOnChannel(sequelize, transaction, locked, result, settings, now);
    return { move, breaker };
  });
  const entry = {
    deliveryId,
    channelId: channel.id,
    kind: channel.kind,
    attempt: attempt.number,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    probe,
  };
  if (!recorded) {
    logger?.warn(entry, 'delivery attempt finished, but it was meanwhile recorded as interrupted (or its delivery is gone): its result is not recorded');
    return 'skipped';
  }
  if (result.ok) logger?.info({ ...entry, outcome: recorded.move }, 'delivery attempt succeeded');
  else logger?.warn({ ...entry, outcome: recorded.move, error: result.error }, 'delivery attempt failed');
  if (recorded.breaker.paused) {
    logger?.warn(
      { channelId: channel.id, consecutiveFailures: recorded.breaker.consecutiveFailures },
      'channel paused: its deliveries wait (circuit breaker open)',
    );
  }
  if (recorded.breaker.resumed) logger?.info({ channelId: channel.id }, 'channel resumed: its probe succeeded');
  return recorded.move;
}

type Claim =
  | { kind: 'done'; outcome: AttemptOutcome; channelId?: string }
  | { kind: 'send'; delivery: NotificationDelivery; channel: NotificationChannel; attempt: NotificationAttempt; probe: boolean };

/** The claim transaction (attempt-log.ts, breaker.ts): decides whether to send, and if so writes the STARTED attempt. */
function claimAttempt(sequelize: Sequelize, deliveryId: string, settings: DeliverySettings, now: Date, opts: AttemptOptions): Promise<Claim> {
  const logger = opts.logger;
  return sequelize.transaction(async (transaction) => {
    const gate = await lockChannelOfDelivery(sequelize, transaction, deliveryId);
    const delivery = await NotificationDelivery.findOne({ where: { id: deliveryId }, transaction, lock: transaction.LOCK.UPDATE, skipLocked: true });
    if (!delivery) return { kind: 'done', outcome: 'skipped' }; // gone, or another worker is claiming or recording it right now
    const done = (outcome: AttemptOutcome): Claim => ({ kind: 'done', outcome, channelId: delivery.channelId });
    if (delivery.status !== 'PENDING' && delivery.status !== 'RETRYING') return done('skipped');

    let interrupted: 'retrying' | 'failed' | undefined;
    const inFlight = await startedAttempt(delivery.id, transaction);
    if (inFlight) {
      if (delivery.nextAttemptAt.getTime() > now.getTime()) return done('deferred'); // its sender's lease still runs
      interrupted = await recordInterrupted(transaction, delivery, inFlight, now);
      logger?.warn({ deliveryId, attempt: inFlight.number, outcome: interrupted }, 'delivery attempt interrupted (its sender stopped); recorded');
      if (interrupted === 'failed') return done('failed');
    }
    if (delivery.nextAttemptAt.getTime() > now.getTime()) return done(interrupted ?? 'skipped');

    if (!gate || gate.company_id !== delivery.companyId || !gate.is_active) {
      const reason = !gate || gate.company_id !== delivery.companyId ? 'channel deleted' : 'channel inactive';
      await delivery.update({ status: 'FAILED', lastError: reason }, { transaction });
      logger?.info({ deliveryId, channelId: delivery.channelId, reason }, 'delivery ended without sending');
      return done('failed');
    }
    const decision = await gateAttempt(sequelize, transaction, gate, settings, now);
    if (decision === 'deferred' || decision === 'held') return done(decision); // an interruption recorded above stays recorded

    const channel = await NotificationChannel.findByPk(delivery.channelId, { transaction });
    if (!channel) return done('skipped');
    const attempt = await startAttempt(transaction, delivery, now, new Date(now.getTime() + leaseOf(opts)));
    return { kind: 'send', delivery, channel, attempt, probe: decision === 'probe' };
  });
}

export interface DispatchSummary {
  /** Jobs really added to the queue (queue mode). */
  enqueued: number;
  /** Deliveries whose job for this attempt was already in the queue (queue mode): not added twice. */
  alreadyQueued: number;
  delivered: number;
  retrying: number;
  failed: number;
  skipped: number;
  deferred: number;
  held: number;
}

export interface DispatchOptions extends AttemptOptions {
  /** The clock of synchronous attempts (default: the time of each attempt). */
  now?: Date;
  /** Synchronous attempts made at once (default 4); never more than the channel cap to one channel. */
  concurrency?: number;
}

export function emptyDispatchSummary(): DispatchSummary {
  return { enqueued: 0, alreadyQueued: 0, delivered: 0, retrying: 0, failed: 0, skipped: 0, deferred: 0, held: 0 };
}

/**
 * Hands deliveries to their transport, after the transaction that created them committed: with a queue,
 * queues the ones still waiting (one job per attempt); without (standalone mode), attempts each one now.
 * Throws when the queue cannot be reached; the deliveries stay due and the next run picks them up.
 */
export async function dispatchDeliveries(
  sequelize: Sequelize,
  ids: string[],
  settings: DeliverySettings,
  queue?: DeliveryQueue,
  opts: DispatchOptions = {},
): Promise<DispatchSummary> {
  const summary = emptyDispatchSummary();
  const unique = [...new Set(ids)].filter((id) => UUID.test(id));
  if (unique.length === 0) return summary;
  const waiting = await sequelize.query<{ id: string; attempts: number; channel_id: string }>(
    `SELECT id, attempts, channel_id FROM notification_deliveries WHERE id = ANY($1::uuid[]) AND status IN ('PENDING', 'RETRYING')`,
    { bind: [unique], type: QueryTypes.SELECT },
  );
  summary.skipped = unique.length - waiting.length;

  if (queue) {
    const { added, alreadyQueued } = await queue.enqueue(waiting.map((r) => ({ id: r.id, attempts: Number(r.attempts) })));
    summary.enqueued = added;
    summary.alreadyQueued = alreadyQueued;
    return summary;
  }

  const order = new Map(unique.map((id, index) => [id, index]));
  const items = waiting.map((r) => ({ id: r.id, channelId: r.channel_id })).sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  await runPerChannel(items, Math.max(1, opts.concurrency ?? 4), settings.CHANNEL_MAX_CONCURRENT_SENDS, async (id) => {
    const outcome = await attemptDelivery(sequelize, id, settings, opts.now ?? new Date(), opts);
    summary[outcome] += 1;
  });
  return summary;
}

/** Runs `work` on every item, at most `total` at once and at most `perChannel` at once for one channel, in order. */
function runPerChannel(items: Array<{ id: string; channelId: string }>, total: number, perChannel: number, work: (id: string) => Promise<void>): Promise<void> {
  const pending = [...items];
  const busy = new Map<string, number>();
  let running = 0;
  return new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (pending.length === 0 && running === 0) return resolve();
      for (let i = 0; i < pending.length && running < total;) {
        const { id, channelId } = pending[i];
        if ((busy.get(channelId) ?? 0) >= perChannel) {
          i += 1;
          continue;
        }
        pending.splice(i, 1);
        running += 1;
        busy.set(channelId, (busy.get(channelId) ?? 0) + 1);
        work(id).then(() => {
          running -= 1;
          busy.set(channelId, busy.get(channelId)! - 1);
          pump();
        }, reject);
      }
    };
    pump();
  });
}

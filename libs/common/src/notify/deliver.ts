/**
 * One delivery attempt, and dispatching due deliveries (DESIGN.md, "Monitoring, events, notifications" and
 * §4 on jobs). The same code runs in the notifier's queue worker and, without Redis, synchronously inside
 * `check_rules` (standalone mode).
 *
 * An attempt is one transaction that holds the delivery row locked (`FOR UPDATE SKIP LOCKED`) from the check
 * to the record:
 * - a row locked by another worker, gone, already finished or not yet due sends nothing ('skipped'), so a
 *   duplicated, late or early job is harmless;
 * - a channel that is gone or inactive ends the delivery (FAILED) without sending and without retries;
 * - otherwise it sends once, records the attempt (status code, truncated and redacted error and answer,
 *   timing) and moves the delivery on: DELIVERED, RETRYING with the next attempt due 2^n × 60 s after the
 *   n-th failure, or FAILED after `max_attempts` failures.
 * A process killed while sending rolls the whole transaction back: no attempt is half recorded, the delivery
 * is still due, and the next worker that takes the job sends again (delivery is at least once; receivers
 * dedupe on `event_id`, also sent as `X-PI-Event-Id`).
 *
 * All time arithmetic uses the `now` argument (never the database clock), so tests control the schedule.
 */
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { NotificationAttempt, NotificationChannel, NotificationDelivery } from '../db/models/monitoring';
import type { Logger } from '../logger';
import { createMailer, renderEventEmail, type Mailer } from './email';
import { parseEventBody } from './payload';
import type { DeliveryQueue } from './queue';
import { redactCutTail, redactSecrets } from './redact';
import { decryptSecret, parseEncryptionKey } from './secret-box';
import type { DeliverySettings } from './settings';
import { sendWebhook } from './webhook';

export type AttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'skipped';

export interface AttemptOptions {
  /** Where attempt outcomes (and console emails, when no mailer is given) are logged. */
  logger?: Logger;
  /** The email transport; default: one per settings object, from the settings. */
  mailer?: Mailer;
  /** Webhook deadline (default: the sender's 10 s). */
  webhookTimeoutMs?: number;
}

/** Column limits of notification_attempts / notification_deliveries. */
const ERROR_MAX = 1000;
const EXCERPT_MAX = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Delay before the next attempt after `attemptsMade` failed attempts: 2^n × 60 s (SPEC.md, Limits). */
export function retryDelayMs(attemptsMade: number): number {
  return 2 ** attemptsMade * 60_000;
}

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

async function send(channel: NotificationChannel, delivery: NotificationDelivery, settings: DeliverySettings, opts: AttemptOptions, secrets: string[]): Promise<SendResult> {
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
 * Makes the due attempt of one delivery, if it is due and no other worker holds it (see the module header).
 * Answers what became of the delivery; throws only when the database fails (the job is then retried).
 */
export async function attemptDelivery(
  sequelize: Sequelize,
  deliveryId: string,
  settings: DeliverySettings,
  now: Date = new Date(),
  opts: AttemptOptions = {},
): Promise<AttemptOutcome> {
  if (typeof deliveryId !== 'string' || !UUID.test(deliveryId)) return 'skipped';
  const logger = opts.logger;
  return sequelize.transaction(async (transaction) => {
    const delivery = await NotificationDelivery.findOne({ where: { id: deliveryId }, transaction, lock: transaction.LOCK.UPDATE, skipLocked: true });
    if (!delivery) return 'skipped'; // gone, or another worker is attempting it right now
    if (delivery.status !== 'PENDING' && delivery.status !== 'RETRYING') return 'skipped';
    if (delivery.nextAttemptAt.getTime() > now.getTime()) return 'skipped';

    const channel = await NotificationChannel.findByPk(delivery.channelId, { transaction });
    if (!channel || channel.companyId !== delivery.companyId || !channel.isActive) {
      const reason = !channel || channel.companyId !== delivery.companyId ? 'channel deleted' : 'channel inactive';
      await delivery.update({ status: 'FAILED', lastError: reason }, { transaction });
      logger?.info({ deliveryId, channelId: delivery.channelId, reason }, 'delivery ended without sending');
      return 'failed';
    }

    const number = delivery.attempts + 1;
    // Every value that must never be stored or logged; the plain channel secret joins once decrypted.
    const secrets = [channel.secretEncrypted, settings.SECRET_ENCRYPTION_KEY, settings.EMAIL_HOST_PASSWORD];
    let result: SendResult;
    try {
      result = await send(channel, delivery, settings, opts, secrets);
    } catch (err) {
      // The senders resolve with failures; this is a programming error, recorded as a failed attempt.
      result = { ok: false, error: `send failed: ${(err as Error).message}`, durationMs: 0 };
    }
    const error = result.ok && !result.error ? null : clean(result.error ?? 'attempt failed', secrets, ERROR_MAX);
    const excerpt = clean(result.responseExcerpt, secrets, EXCERPT_MAX);

    await NotificationAttempt.create(
      {
        companyId: delivery.companyId,
        deliveryId: delivery.id,
        number,
        ok: result.ok,
        statusCode: result.statusCode ?? null,
        error,
        responseExcerpt: excerpt,
        durationMs: Math.max(0, Math.round(result.durationMs ?? 0)),
        startedAt: now,
      },
      { transaction },
    );

    let outcome: AttemptOutcome;
    const changes: Partial<NotificationDelivery> = { attempts: number, lastStatusCode: result.statusCode ?? null, lastError: result.ok ? null : error };
    if (result.ok) {
      outcome = 'delivered';
      Object.assign(changes, { status: 'DELIVERED', deliveredAt: now });
    } else if (number < delivery.maxAttempts) {
      outcome = 'retrying';
      Object.assign(changes, { status: 'RETRYING', nextAttemptAt: new Date(now.getTime() + retryDelayMs(number)) });
    } else {
      outcome = 'failed';
      Object.assign(changes, { status: 'FAILED' });
    }
    await delivery.update(changes, { transaction });

    const entry = { deliveryId, channelId: channel.id, kind: channel.kind, attempt: number, outcome, statusCode: result.statusCode, durationMs: result.durationMs };
    if (result.ok) logger?.info(entry, 'delivery attempt succeeded');
    else logger?.warn({ ...entry, error }, 'delivery attempt failed');
    return outcome;
  });
}

export interface DispatchSummary {
  /** Jobs handed to the queue (queue mode). */
  enqueued: number;
  delivered: number;
  retrying: number;
  failed: number;
  skipped: number;
}

export interface DispatchOptions extends AttemptOptions {
  /** The clock of synchronous attempts (default: the time of each attempt). */
  now?: Date;
  /** Synchronous attempts made at once (default 4). */
  concurrency?: number;
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
  const summary: DispatchSummary = { enqueued: 0, delivered: 0, retrying: 0, failed: 0, skipped: 0 };
  const unique = [...new Set(ids)].filter((id) => UUID.test(id));
  if (unique.length === 0) return summary;

  if (queue) {
    const waiting = await sequelize.query<{ id: string; attempts: number }>(
      `SELECT id, attempts FROM notification_deliveries WHERE id = ANY($1::uuid[]) AND status IN ('PENDING', 'RETRYING')`,
      { bind: [unique], type: QueryTypes.SELECT },
    );
    summary.enqueued = await queue.enqueue(waiting.map((r) => ({ id: r.id, attempts: Number(r.attempts) })));
    summary.skipped = unique.length - summary.enqueued;
    return summary;
  }

  let next = 0;
  const worker = async () => {
    while (next < unique.length) {
      const id = unique[next++];
      const outcome = await attemptDelivery(sequelize, id, settings, opts.now ?? new Date(), opts);
      summary[outcome] += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 4, unique.length)) }, worker));
  return summary;
}

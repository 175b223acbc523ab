/**
 * The delivery queue (BullMQ on Redis) between the monitor, which creates deliveries, and the notifier, which
 * attempts them (docs/decisions/0003-delivery-outbox.md).
 *
 * - A job carries `{deliveryId}` and nothing else: no body, no URL, no secret. The worker reads the row. With
 *   tracing on, it also carries the W3C trace context of the producer's span (`traceparent`, `tracestate`),
 *   and the worker's span continues that trace (docs/operations/tracing.md).
 * - The job id is `<delivery id>_<attempts so far>`, so the same attempt is never queued twice while a job for
 *   it waits or runs (BullMQ ignores an add with an existing id; it refuses `:` in custom ids, hence `_`).
 *   Finished jobs are removed at once, so a later `check_rules` run can always queue a delivery the queue
 *   lost (flushed Redis, a crash) again: the delivery table is the truth, the queue only a transport.
 * - Producers fail fast when Redis is down (`enableOfflineQueue: false`, a bounded wait for the connection);
 *   the caller's deliveries stay due in the table and the next run queues them. A producer waits once per
 *   outage: after a wait has timed out, calls fail at once until the connection is ready again (ioredis goes
 *   on reconnecting meanwhile), so a check_rules run over many companies does not wait once per company.
 * - `enqueue` answers how many jobs it really added: a job already in the queue for the same attempt is not
 *   added again and is counted apart.
 * - Workers retry Redis forever (`maxRetriesPerRequest: null`) and drain their in-flight jobs on close. A job
 *   whose handler answers 'deferred' (its channel is at its cap of sends in flight) goes back to the queue,
 *   delayed a little longer each time (DEFER_BASE_MS doubling up to DEFER_MAX_MS), so it holds no worker slot
 *   while it waits; when a send to that channel ends in this process, one of its deferred jobs is woken at
 *   once, so a burst to one healthy channel runs at its cap rather than at the pace of the delays. The job lock is tuned to the 10 s send deadline, so a job of a killed worker is taken over
 *   within about 15 s (docs/api/monitoring-and-notifications.md "Delivery guarantees").
 */
import { EventEmitter } from 'node:events';
import type { Job, Queue, Worker } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import Joi from 'joi';
import { type Logger, type TraceCarrier, currentTraceCarrier, withSpan } from '@pi/common/core';

/**
 * bullmq and ioredis are loaded by the first queue or worker, not with the package: a check_rules run without
 * REDIS_URL never needs them, and they were a quarter of its start (docs/operations/benchmarks.md).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a load on first use needs require() in CommonJS */
const bullmq = (): typeof import('bullmq') => require('bullmq') as typeof import('bullmq');
const ioredis = (): typeof import('ioredis').default => (require('ioredis') as typeof import('ioredis')).default;
/* eslint-enable @typescript-eslint/no-require-imports */

export const DEFAULT_DELIVERY_QUEUE = 'notification-deliveries';
/** BullMQ's default key prefix. */
export const DEFAULT_QUEUE_PREFIX = 'bull';
/** How long a producer waits for Redis before giving up. */
export const PRODUCER_CONNECT_TIMEOUT_MS = 5_000;
/**
 * The job lock: BullMQ renews it every half of it while the worker lives; a killed worker's job is taken over
 * once it expires and the stalled-job check (every half of it) runs. Tuned to the 10 s send deadline.
 */
export const DEFAULT_JOB_LOCK_MS = 10_000;
/** How long `close` waits for BullMQ when Redis does not answer: the send deadline and a margin. */
export const CLOSE_LIMIT_MS = 15_000;
/** First delay of a deferred job, doubled at each deferral up to DEFER_MAX_MS (±20 % jitter). */
export const DEFER_BASE_MS = 50;
export const DEFER_MAX_MS = 3_000;

/** Queue settings that a producer (monitor) and the consumer (notifier) must agree on. */
export interface DeliveryQueueSettings {
  DELIVERY_QUEUE_NAME: string;
  DELIVERY_QUEUE_PREFIX: string;
}

export const deliveryQueueEnv: Record<keyof DeliveryQueueSettings, Joi.Schema> = {
  DELIVERY_QUEUE_NAME: Joi.string()
    .pattern(/^[A-Za-z0-9_.-]{1,100}$/)
    .default(DEFAULT_DELIVERY_QUEUE),
  DELIVERY_QUEUE_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9_.-]{1,100}$/)
    .default(DEFAULT_QUEUE_PREFIX),
};

/** The whole payload of a delivery job: the delivery's id, and the producer's trace context when tracing is on. */
export interface DeliveryJobData extends TraceCarrier {
  deliveryId: string;
}

export interface DeliveryRef {
  id: string;
  /** Attempts made so far (`notification_deliveries.attempts`). */
  attempts: number;
}

export interface DeliveryQueueOptions {
  name?: string;
  prefix?: string;
  /** How long `enqueue` waits for Redis before failing (default 5 s). */
  connectTimeoutMs?: number;
  logger?: Logger;
}

/** The queue could not take the jobs (Redis down, unreachable or refusing): the deliveries stay due. */
export class QueueUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueUnavailableError';
  }
}

/** What `enqueue` did. */
export interface EnqueueResult {
  /** Jobs added. */
  added: number;
  /** Deliveries whose job for this attempt already waited, ran or was delayed: not added twice. */
  alreadyQueued: number;
}

/** The BullMQ job id of one attempt of one delivery. */
export function deliveryJobId(delivery: DeliveryRef): string {
  return `${delivery.id}_${delivery.attempts}`;
}

const JOB_OPTIONS = {
  removeOnComplete: true,
  removeOnFail: true,
  // Retries of the job itself are for infrastructure errors (the database unreachable); a receiver's failure is
  // not an error of the job, it is an attempt recorded on the delivery, retried on its documented schedule (2^n × 60 s).
  attempts: 3,
  backoff: { type: 'exponential', delay: 5_000 },
} as const;

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * BullMQ re-emits a connection's failed connect as an 'error' on its internal connection object, and `close()`
 * removes that object's listeners first; when the connect attempt fails after the close (Redis down while
 * shutting down), the 'error' has no listener, so it throws as an unhandled rejection and the process dies
 * (exit 1 instead of a clean stop). Once closed, those objects get a listener that ignores it.
 */
function silenceClosedConnections(owner: object): void {
  for (const key of ['connection', 'blockingConnection']) {
    const connection = (owner as Record<string, unknown>)[key];
    if (connection instanceof EventEmitter && connection.listenerCount('error') === 0) connection.on('error', () => {});
  }
}

/** The jobs of a delivery queue by state, and the age of the oldest waiting one (DeliveryQueue.depth). */
export interface QueueDepth {
  waiting: number;
  delayed: number;
  active: number;
  failed: number;
  oldestWaitingAgeSeconds: number;
}

/** The producer side: queues delivery ids. One instance per process; `close()` it on shutdown. */
export class DeliveryQueue {
  readonly name: string;
  readonly prefix: string;
  /** The BullMQ queue (tests obliterate it; nothing else should need it). */
  readonly queue: Queue<DeliveryJobData>;
  private readonly redis: Redis;
  private readonly connectTimeoutMs: number;
  /** A wait for Redis timed out and the connection has not been ready since. */
  private unreachable = false;

  constructor(redisUrl: string, opts: DeliveryQueueOptions = {}) {
    this.name = opts.name ?? DEFAULT_DELIVERY_QUEUE;
    this.prefix = opts.prefix ?? DEFAULT_QUEUE_PREFIX;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? PRODUCER_CONNECT_TIMEOUT_MS;
    const IORedis = ioredis();
    this.redis = new IORedis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: this.connectTimeoutMs });
    // Without a listener, a connection error would be an uncaught 'error' event.
    const logger = opts.logger;
    let warned = false;
    this.redis.on('error', (err: Error) => {
      if (!warned) logger?.warn({ err: { message: err.message } }, 'delivery queue: Redis connection error');
      warned = true;
    });
    this.redis.on('ready', () => {
      warned = false;
      this.unreachable = false;
    });
    this.queue = new (bullmq().Queue)<DeliveryJobData>(this.name, { connection: this.redis, prefix: this.prefix });
    this.queue.on('error', () => {}); // reported once above
  }

  /**
   * Queues one job per delivery (id `<delivery id>_<attempts>`); an attempt already waiting, delayed or running is
   * not queued again, and is counted apart. Throws QueueUnavailableError when Redis cannot be reached within the
   * connect timeout or refuses the jobs.
   */
  async enqueue(deliveries: DeliveryRef[]): Promise<EnqueueResult> {
    const unique = [...new Map(deliveries.map((d) => [deliveryJobId(d), d])).values()];
    if (unique.length === 0) return { added: 0, alreadyQueued: 0 };
    try {
      return await this.add(unique);
    } catch (err) {
      throw err instanceof QueueUnavailableError ? err : new QueueUnavailableError(`Redis refused the jobs (queue ${this.name}): ${(err as Error).message}`);
    }
  }

  /**
   * Waits for the connection at most the connect timeout; fails at once while an earlier wait has timed out
   * and the connection has not been ready since.
   */
  private async waitForRedis(): Promise<void> {
    if (this.unreachable) throw new QueueUnavailableError(this.unreachableMessage());
    await withTimeout(this.queue.waitUntilReady(), this.connectTimeoutMs, this.unreachableMessage()).catch((err: Error) => {
      this.unreachable = true;
      throw new QueueUnavailableError(err.message);
    });
  }

  private async add(unique: DeliveryRef[]): Promise<EnqueueResult> {
    if (this.redis.status !== 'ready') await this.waitForRedis();
    // BullMQ's add answers the same for a new job and an ignored duplicate, so look first. Only another producer
    // adding the same attempt between the two steps could make the count one too high.
    const exists = (await this.redis.pipeline(unique.map((d) => ['exists', this.queue.toKey(deliveryJobId(d))])).exec()) ?? [];
    const fresh = unique.filter((_, i) => {
      const [err, found] = exists[i] ?? [];
      if (err) throw err;
      return found === 0;
    });
    if (fresh.length > 0) {
      const attributes = { 'messaging.system': 'bullmq', 'messaging.destination.name': this.name, 'messaging.batch.message_count': fresh.length };
      await withSpan(`send ${this.name}`, { kind: 'producer', attributes }, async () => {
        const trace = currentTraceCarrier();
        await this.queue.addBulk(
          fresh.map((d) => ({
            name: 'deliver',
            data: { deliveryId: d.id, ...trace },
            opts: { ...JOB_OPTIONS, jobId: deliveryJobId(d) },
          })),
        );
      });
    }
    return { added: fresh.length, alreadyQueued: unique.length - fresh.length };
  }

  /**
   * How many jobs wait, are delayed (deferred or not yet due), run or failed, and how long the oldest waiting
   * job has waited (0 when none waits), for the queue metrics (docs/operations/metrics.md). BullMQ pushes new
   * jobs on the left of its wait list and workers take them from the right, so the oldest is the last one.
   * Throws when Redis does not answer within the connect timeout.
   */
  async depth(now = Date.now()): Promise<QueueDepth> {
    return withTimeout(this.readDepth(now), this.connectTimeoutMs, this.unreachableMessage());
  }

  private unreachableMessage(): string {
    return `Redis is not reachable (queue ${this.name})`;
  }

  private async readDepth(now: number): Promise<QueueDepth> {
    const counts = await this.queue.getJobCounts('wait', 'prioritized', 'delayed', 'active', 'failed');
    const oldestId = await this.redis.lindex(this.queue.toKey('wait'), -1);
    const created = oldestId ? Number(await this.redis.hget(this.queue.toKey(oldestId), 'timestamp')) : NaN;
    return {
      waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
      delayed: counts.delayed ?? 0,
      active: counts.active ?? 0,
      failed: counts.failed ?? 0,
      oldestWaitingAgeSeconds: Number.isFinite(created) ? Math.max(0, (now - created) / 1000) : 0,
    };
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => {});
    silenceClosedConnections(this.queue);
    this.redis.disconnect();
  }
}

export interface DeliveryWorkerOptions {
  redisUrl: string;
  name?: string;
  prefix?: string;
  /** Jobs processed at once by this process (default 5). */
  concurrency?: number;
  /**
   * How long a job stays owned by a worker that stopped renewing it (a killed process) before another worker
   * takes it over (default DEFAULT_JOB_LOCK_MS); the stalled-job check runs every half of it.
   */
  lockDurationMs?: number;
  /**
   * Does the delivery; its outcome is the job's result. 'deferred' puts the job back, delayed (see the module
   * header); naming the channel lets a send that ends wake a deferred job of it. Throwing fails the job
   * (retried a few times).
   */
  handler: (deliveryId: string, job: Job<DeliveryJobData>) => Promise<string | HandledJob>;
  logger?: Logger;
}

/** What a handler did with a job, and the channel of its delivery when known. */
export interface HandledJob {
  outcome: string;
  channelId?: string;
}

/** Outcomes after which the channel has no send of this job in flight: a deferred job of it may go. */
const SLOT_FREED = new Set(['delivered', 'retrying', 'failed', 'skipped']);
/** Deferred jobs remembered per channel (beyond that they wait for their delay). */
const MAX_REMEMBERED = 1000;

/** The jobs this worker deferred, per channel, so that a send that ends can wake one at once. */
class DeferredJobs {
  private readonly byChannel = new Map<string, Map<string, Job<DeliveryJobData>>>();

  add(channelId: string, job: Job<DeliveryJobData>): void {
    const jobs = this.byChannel.get(channelId) ?? new Map<string, Job<DeliveryJobData>>();
    if (jobs.size < MAX_REMEMBERED) jobs.set(String(job.id), job);
    this.byChannel.set(channelId, jobs);
  }

  forget(channelId: string, jobId: string | undefined): void {
    this.byChannel.get(channelId)?.delete(String(jobId));
  }

  /** Moves one deferred job of the channel from delayed to waiting (skipping any that already woke). */
  async wakeOne(channelId: string): Promise<void> {
    const jobs = this.byChannel.get(channelId);
    for (const [id, job] of jobs ?? []) {
      jobs!.delete(id);
      try {
        await job.promote();
        break;
      } catch {
        // No longer delayed (it woke by itself, or is gone): try the next one.
      }
    }
    if (jobs && jobs.size === 0) this.byChannel.delete(channelId);
  }
}

export interface DeliveryWorker {
  readonly worker: Worker<DeliveryJobData>;
  /** Checks that the worker's Redis answers (for /readyz). */
  ping(): Promise<void>;
  /**
   * Stops taking jobs, waits for the ones in flight (unless `force`), and disconnects. `force` abandons
   * in-flight jobs as a killed process would (their locks expire and another worker takes them).
   */
  close(force?: boolean): Promise<void>;
}

/** The delay of a job deferred for the `started`-th time (its BullMQ `attemptsStarted`). */
export function deferDelayMs(started: number): number {
  const base = Math.min(DEFER_BASE_MS * 2 ** Math.max(0, Math.min(started - 1, 10)), DEFER_MAX_MS);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Starts consuming the delivery queue. */
export function startDeliveryWorker(opts: DeliveryWorkerOptions): DeliveryWorker {
  const redisOptions: RedisOptions = { maxRetriesPerRequest: null };
  const IORedis = ioredis();
  const { DelayedError, Worker } = bullmq();
  const connection = new IORedis(opts.redisUrl, redisOptions);
  const logger = opts.logger;
  let redisDown = false;
  connection.on('error', (err: Error) => {
    if (!redisDown) logger?.warn({ err: { message: err.message } }, 'delivery worker: Redis connection error');
    redisDown = true;
  });
  connection.on('ready', () => (redisDown = false));

  const lockDuration = opts.lockDurationMs ?? DEFAULT_JOB_LOCK_MS;
  const queueName = opts.name ?? DEFAULT_DELIVERY_QUEUE;
  const deferred = new DeferredJobs();
  let handling = 0;
  /** The handler, in a span that continues the trace of the job's producer (when tracing is on and it had one). */
  const handle = (deliveryId: string, job: Job<DeliveryJobData>) => {
    const parent = typeof job.data.traceparent === 'string' ? { traceparent: job.data.traceparent, tracestate: job.data.tracestate } : {};
    const attributes = {
      'messaging.system': 'bullmq',
      'messaging.destination.name': queueName,
      'messaging.message.id': String(job.id),
      'pi.delivery.id': deliveryId,
    };
    return withSpan(`process ${queueName}`, { kind: 'consumer', parent, attributes }, async (span) => {
      const result = await opts.handler(deliveryId, job);
      span.setAttributes({ 'pi.delivery.outcome': typeof result === 'string' ? result : result.outcome });
      return result;
    });
  };
  const worker = new Worker<DeliveryJobData>(
    queueName,
    async (job, token) => {
      const deliveryId = job.data?.deliveryId;
      if (typeof deliveryId !== 'string') return 'skipped'; // not ours: nothing to do, nothing to retry
      handling += 1;
      let result: string | HandledJob;
      try {
        result = await handle(deliveryId, job);
      } finally {
        handling -= 1;
      }
      const { outcome, channelId } = typeof result === 'string' ? { outcome: result, channelId: undefined } : result;
      if (outcome === 'deferred') {
        await job.moveToDelayed(Date.now() + deferDelayMs(job.attemptsStarted), token);
        if (channelId) deferred.add(channelId, job);
        throw new DelayedError();
      }
      if (channelId) {
        deferred.forget(channelId, job.id);
        if (SLOT_FREED.has(outcome)) await deferred.wakeOne(channelId);
      }
      return outcome;
    },
    {
      connection,
      prefix: opts.prefix ?? DEFAULT_QUEUE_PREFIX,
      concurrency: opts.concurrency ?? 5,
      lockDuration,
      stalledInterval: Math.max(500, Math.round(lockDuration / 2)),
    },
  );
  worker.on('error', (err: Error) => logger?.warn({ err: { message: err.message } }, 'delivery worker error'));
  worker.on('failed', (job, err) => logger?.error({ jobId: job?.id, attemptsMade: job?.attemptsMade, err: { message: err.message } }, 'delivery job failed'));

  return {
    worker,
    ping: async () => {
      if (connection.status !== 'ready') throw new Error('Redis is not reachable');
      await withTimeout(connection.ping(), 2_000, 'Redis did not answer');
    },
    close: async (force = false) => {
      // With Redis gone, BullMQ's close waits for it forever. The handlers need only the database: once they are
      // done (or after CLOSE_LIMIT_MS), stop waiting; their jobs are found again through the outbox.
      let closed = false;
      const closing = worker.close(force).then(
        () => (closed = true),
        () => (closed = true),
      );
      // Silenced once BullMQ has removed its own listeners, whenever that is (see silenceClosedConnections).
      void closing.then(() => silenceClosedConnections(worker));
      const started = Date.now();
      while (!closed && Date.now() - started < CLOSE_LIMIT_MS) {
        if (connection.status !== 'ready' && handling === 0 && Date.now() - started > 1_000) break;
        await Promise.race([closing, new Promise((r) => setTimeout(r, 100))]);
      }
      connection.disconnect(); // a close still waiting on Redis now fails fast and finishes
      if (!closed) {
        await Promise.race([closing, new Promise((r) => setTimeout(r, 2_000))]);
        logger?.warn(
          { redis: connection.status, inFlight: handling },
          'delivery worker: closed without Redis; unfinished jobs are found again through the outbox',
        );
      }
      silenceClosedConnections(worker);
    },
  };
}

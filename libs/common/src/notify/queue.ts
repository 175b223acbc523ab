/**
 * The delivery queue (BullMQ on Redis) between the monitor, which creates deliveries, and the notifier, which
 * attempts them (DESIGN.md §4 on jobs).
 *
 * - A job carries `{deliveryId}` and nothing else: no body, no URL, no secret. The worker reads the row.
 * - The job id is `<delivery id>_<attempts so far>`, so the same attempt is never queued twice while a job for
 *   it waits or runs (BullMQ ignores an add with an existing id; it refuses `:` in custom ids, hence `_`).
 *   Finished jobs are removed at once, so a later `check_rules` run can always queue a delivery the queue
 *   lost (flushed Redis, a crash) again: the delivery table is the truth, the queue only a transport.
 * - Producers fail fast when Redis is down (`enableOfflineQueue: false`, a bounded wait for the connection);
 *   the caller's deliveries stay due in the table and the next run queues them.
 * - Workers retry Redis forever (`maxRetriesPerRequest: null`) and drain their in-flight jobs on close.
 */
import { EventEmitter } from 'node:events';
import { Queue, Worker, type Job } from 'bullmq';
import IORedis, { type Redis, type RedisOptions } from 'ioredis';
import Joi from 'joi';
import type { Logger } from '../logger';

export const DEFAULT_DELIVERY_QUEUE = 'notification-deliveries';
/** BullMQ's default key prefix. */
export const DEFAULT_QUEUE_PREFIX = 'bull';
/** How long a producer waits for Redis before giving up. */
export const PRODUCER_CONNECT_TIMEOUT_MS = 5_000;

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

/** The whole payload of a delivery job. */
export interface DeliveryJobData {
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

/** The BullMQ job id of one attempt of one delivery. */
export function deliveryJobId(delivery: DeliveryRef): string {
  return `${delivery.id}_${delivery.attempts}`;
}

const JOB_OPTIONS = {
  removeOnComplete: true,
  removeOnFail: true,
  // Retries of the job itself are for infrastructure errors (the database unreachable); a receiver's failure is
  // not an error of the job, it is an attempt recorded on the delivery, retried on the schedule of SPEC.md.
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

/** The producer side: queues delivery ids. One instance per process; `close()` it on shutdown. */
export class DeliveryQueue {
  readonly name: string;
  readonly prefix: string;
  /** The BullMQ queue (tests obliterate it; nothing else should need it). */
  readonly queue: Queue<DeliveryJobData>;
  private readonly redis: Redis;
  private readonly connectTimeoutMs: number;

  constructor(redisUrl: string, opts: DeliveryQueueOptions = {}) {
    this.name = opts.name ?? DEFAULT_DELIVERY_QUEUE;
    this.prefix = opts.prefix ?? DEFAULT_QUEUE_PREFIX;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? PRODUCER_CONNECT_TIMEOUT_MS;
    this.redis = new IORedis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: this.connectTimeoutMs });
    // Without a listener, a connection error would be an uncaught 'error' event.
    const logger = opts.logger;
    let warned = false;
    this.redis.on('error', (err: Error) => {
      if (!warned) logger?.warn({ err: { message: err.message } }, 'delivery queue: Redis connection error');
      warned = true;
    });
    this.redis.on('ready', () => (warned = false));
    this.queue = new Queue<DeliveryJobData>(this.name, { connection: this.redis, prefix: this.prefix });
    this.queue.on('error', () => {}); // reported once above
  }

  /**
   * Queues one job per delivery (id `<delivery id>_<attempts>`); an attempt already waiting or running is not
   * queued again. Throws when Redis cannot be reached within the connect timeout.
   */
  async enqueue(deliveries: DeliveryRef[]): Promise<number> {
    if (deliveries.length === 0) return 0;
    if (this.redis.status !== 'ready') {
      await withTimeout(this.queue.waitUntilReady(), this.connectTimeoutMs, `Redis is not reachable (queue ${this.name})`);
    }
    await this.queue.addBulk(
      deliveries.map((d) => ({
        name: 'deliver',
        data: { deliveryId: d.id },
        opts: { ...JOB_OPTIONS, jobId: deliveryJobId(d) },
      })),
    );
    return deliveries.length;
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
   * takes it over; also the interval of the stalled-job check. BullMQ's default, 30 s, outlives the 10 s
   * webhook timeout with room to spare.
   */
  lockDurationMs?: number;
  /** Does the delivery; its result is the job's result. Throwing fails the job (retried a few times). */
  handler: (deliveryId: string, job: Job<DeliveryJobData>) => Promise<unknown>;
  logger?: Logger;
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

/** Starts consuming the delivery queue. */
export function startDeliveryWorker(opts: DeliveryWorkerOptions): DeliveryWorker {
  const redisOptions: RedisOptions = { maxRetriesPerRequest: null };
  const connection = new IORedis(opts.redisUrl, redisOptions);
  const logger = opts.logger;
  let redisDown = false;
  connection.on('error', (err: Error) => {
    if (!redisDown) logger?.warn({ err: { message: err.message } }, 'delivery worker: Redis connection error');
    redisDown = true;
  });
  connection.on('ready', () => (redisDown = false));

  const lockDuration = opts.lockDurationMs ?? 30_000;
  const worker = new Worker<DeliveryJobData>(
    opts.name ?? DEFAULT_DELIVERY_QUEUE,
    async (job) => {
      const deliveryId = job.data?.deliveryId;
      if (typeof deliveryId !== 'string') return 'skipped'; // not ours: nothing to do, nothing to retry
      return opts.handler(deliveryId, job);
    },
    {
      connection,
      prefix: opts.prefix ?? DEFAULT_QUEUE_PREFIX,
      concurrency: opts.concurrency ?? 5,
      lockDuration,
      stalledInterval: lockDuration,
    },
  );
  worker.on('error', (err: Error) => logger?.warn({ err: { message: err.message } }, 'delivery worker error'));
  worker.on('failed', (job, err) =>
    logger?.error({ jobId: job?.id, attemptsMade: job?.attemptsMade, err: { message: err.message } }, 'delivery job failed'),
  );

  return {
    worker,
    ping: async () => {
      if (connection.status !== 'ready') throw new Error('Redis is not reachable');
      await withTimeout(connection.ping(), 2_000, 'Redis did not answer');
    },
    close: async (force = false) => {
      await worker.close(force);
      silenceClosedConnections(worker);
      connection.disconnect();
    },
  };
}

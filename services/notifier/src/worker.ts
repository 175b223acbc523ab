/**
 * The notifier's queue worker: takes delivery ids from BullMQ and makes each due attempt with
 * `attemptDelivery` (the delivery row is the truth; a job is only an id). Without REDIS_URL there is no queue
 * (standalone mode: `check_rules` sends synchronously) and the notifier serves its probes only.
 *
 * A job holds a database connection only for the two short transactions around its send (claim, record), so
 * a slot is cheap: the default concurrency leaves room for healthy channels while slow ones use their cap of
 * sends in flight (docs/api/monitoring-and-notifications.md "Delivery guarantees").
 *
 * On SIGTERM the worker stops taking jobs and lets the ones in flight finish (each is bounded by the 10 s
 * send deadline) before the database pool closes and the process exits.
 */
import Joi from 'joi';
import { ServiceContext, ServiceExtras } from '@pi/common';
import {
  DeliverySettings,
  DEFAULT_JOB_LOCK_MS,
  DeliveryQueueSettings,
  DeliveryQueue,
  attemptDeliveryReport,
  deliveryEnv,
  deliveryQueueEnv,
  startDeliveryWorker,
} from '@pi/notify';
import { DeliveryMetrics } from './metrics';
import { registerQueueMetrics } from './queue-metrics';

export interface NotifierSettings extends DeliverySettings, DeliveryQueueSettings {
  /** Delivery jobs processed at once by one notifier process. */
  NOTIFIER_CONCURRENCY: number;
  /** How long a killed notifier's job stays locked before another worker takes it over (the stalled-job check runs every half of it). */
  NOTIFIER_JOB_LOCK_MS: number;
}

export const notifierEnv: Record<keyof NotifierSettings, Joi.Schema> = {
  ...deliveryEnv,
  ...deliveryQueueEnv,
  NOTIFIER_CONCURRENCY: Joi.number().integer().min(1).max(100).default(20),
  NOTIFIER_JOB_LOCK_MS: Joi.number().integer().min(1000).max(600_000).default(DEFAULT_JOB_LOCK_MS),
};

/**
 * Starts the worker when REDIS_URL is set, with its metrics and the queue's (read through a producer-style
 * connection of its own, which fails fast while Redis is down); answers the readiness checks and shutdown hooks
 * it needs.
 */
export function startNotifierWorker(ctx: ServiceContext<NotifierSettings>): ServiceExtras {
  const { config, db } = ctx;
  const metrics = new DeliveryMetrics(ctx.metrics);
  const logger = ctx.logger.child({ component: 'deliveries' });
  if (!config.REDIS_URL) {
    logger.info('REDIS_URL is not set: no delivery worker (check_rules delivers synchronously)');
    return {};
  }
  const worker = startDeliveryWorker({
    redisUrl: config.REDIS_URL,
    name: config.DELIVERY_QUEUE_NAME,
    prefix: config.DELIVERY_QUEUE_PREFIX,
    concurrency: config.NOTIFIER_CONCURRENCY,
    lockDurationMs: config.NOTIFIER_JOB_LOCK_MS,
    logger,
    handler: (deliveryId) => metrics.track(() => attemptDeliveryReport(db.sequelize, deliveryId, config, new Date(), { logger })),
  });
  const depthReader = new DeliveryQueue(config.REDIS_URL, {
    name: config.DELIVERY_QUEUE_NAME,
    prefix: config.DELIVERY_QUEUE_PREFIX,
    connectTimeoutMs: 2_000,
    logger,
  });
  registerQueueMetrics(ctx.metrics, depthReader);
  logger.info(
    {
      queue: config.DELIVERY_QUEUE_NAME,
      concurrency: config.NOTIFIER_CONCURRENCY,
      channelCap: config.CHANNEL_MAX_CONCURRENT_SENDS,
      jobLockMs: config.NOTIFIER_JOB_LOCK_MS,
    },
    'delivery worker started',
  );
  return {
    readinessChecks: [() => worker.ping()],
    onShutdown: [
      async () => {
        logger.info({ inFlight: metrics.inFlight() }, 'delivery worker: finishing in-flight jobs');
        await worker.close();
        await depthReader.close();
        logger.info('delivery worker stopped');
      },
    ],
  };
}

/**
 * The delivery queue as Prometheus sees it (docs/operations/metrics.md), read from Redis at scrape time:
 * `delivery_queue_jobs{state}` (waiting, delayed, active, failed) and
 * `delivery_queue_oldest_waiting_job_age_seconds`. One read serves both gauges of a scrape. While Redis cannot
 * be read the series are absent (and /readyz says why), rather than a 0 that would look like an empty queue.
 */
import { Gauge } from 'prom-client';
import type { MetricsRegistry } from '@pi/common';
import type { DeliveryQueue, QueueDepth } from '@pi/notify';

export const QUEUE_STATES = ['waiting', 'delayed', 'active', 'failed'] as const;

export function registerQueueMetrics(registry: MetricsRegistry, queue: Pick<DeliveryQueue, 'depth'>): void {
  let reading: Promise<QueueDepth | undefined> | undefined;
  const read = () => {
    if (!reading) {
      reading = queue.depth().catch(() => undefined);
      void reading.then(() => (reading = undefined));
    }
    return reading;
  };
  new Gauge({
    name: 'delivery_queue_jobs',
    help: 'Jobs of the delivery queue by state (the whole queue, as every notifier sees it).',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const depth = await read();
      this.reset();
      if (depth) for (const state of QUEUE_STATES) this.set({ state }, depth[state]);
    },
  });
  new Gauge({
    name: 'delivery_queue_oldest_waiting_job_age_seconds',
    help: 'How long the oldest waiting delivery job has waited (0 when none waits).',
    registers: [registry],
    async collect() {
      const depth = await read();
      this.reset();
      if (depth) this.set(depth.oldestWaitingAgeSeconds);
    },
  });
}

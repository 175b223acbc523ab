/**
 * How one `check_rules` run hands deliveries to their transport. The delivery table is the outbox: a delivery
 * that cannot be queued stays due and the next run queues it, so a queue that cannot be reached never stops
 * the run. After the first failure the run stops trying (each try waits for Redis up to the connect timeout)
 * and counts what it leaves waiting; evaluation goes on for every company.
 */
import type { Sequelize } from 'sequelize-typescript';
import { DeliveryQueue, DeliverySettings, DispatchSummary, QueueUnavailableError, dispatchDeliveries } from '@pi/notify';

/** What the run's deliveries became, as the summary prints it. */
export interface DispatchCounts {
  /** Jobs really added to the queue. */
  enqueued: number;
  /** Deliveries whose job for this attempt was already queued (not added twice). */
  already_queued: number;
  delivered: number;
  retrying: number;
  failed: number;
  /** Channel at its cap of sends in flight: left due (standalone mode). */
  deferred: number;
  /** Deliveries left due because the queue could not be reached. */
  waiting_for_queue: number;
  /** Why the queue could not be reached (null when it could, or without a queue). */
  queue_error: string | null;
}

export function emptyDispatchCounts(): DispatchCounts {
  return { enqueued: 0, already_queued: 0, delivered: 0, retrying: 0, failed: 0, deferred: 0, waiting_for_queue: 0, queue_error: null };
}

export class RunDispatcher {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly settings: DeliverySettings,
    private readonly counts: DispatchCounts,
    private readonly now: Date,
    private readonly queue?: DeliveryQueue,
  ) {}

  /** Queues (or, without a queue, attempts) these deliveries; never throws for the queue. */
  async dispatch(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    if (this.queue && this.counts.queue_error !== null) {
      this.counts.waiting_for_queue += ids.length;
      return;
    }
    let outcome: DispatchSummary;
    try {
      outcome = await dispatchDeliveries(this.sequelize, ids, this.settings, this.queue, { now: this.now });
    } catch (err) {
      if (!(err instanceof QueueUnavailableError)) throw err; // the database failing: the run fails
      this.counts.queue_error = err.message;
      this.counts.waiting_for_queue += ids.length;
      return;
    }
    this.counts.enqueued += outcome.enqueued;
    this.counts.already_queued += outcome.alreadyQueued;
    this.counts.delivered += outcome.delivered;
    this.counts.retrying += outcome.retrying;
    this.counts.failed += outcome.failed;
    this.counts.deferred += outcome.deferred;
  }
}

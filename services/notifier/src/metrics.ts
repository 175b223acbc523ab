/**
 * The notifier's own metrics (docs/operations/metrics.md), in the service's Prometheus registry:
 * `notifier_deliveries_processed_total{outcome}` (delivery jobs by outcome), `notifier_deliveries_in_flight`,
 * and `notifier_delivery_duration_seconds{outcome}` (how long a job's claim, send and record took).
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import { type MetricsRegistry } from '@pi/common';
import { ATTEMPT_OUTCOMES, type AttemptOutcome, type AttemptReport } from '@pi/notify';

/** `error`: the job threw (the database failed); BullMQ retries it. */
export type ProcessedOutcome = AttemptOutcome | 'error';

const OUTCOMES: ProcessedOutcome[] = [...ATTEMPT_OUTCOMES, 'error'];

/** A send is bounded by 10 s; claim and record are short transactions. */
const BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

export class DeliveryMetrics {
  private readonly processed: Counter<'outcome'>;
  private readonly running: Gauge;
  private readonly duration: Histogram<'outcome'>;
  private inFlightCount = 0;

  constructor(registry: MetricsRegistry) {
    this.processed = new Counter({
      name: 'notifier_deliveries_processed_total',
      help: 'Delivery jobs processed by this notifier, by outcome.',
      labelNames: ['outcome'],
      registers: [registry],
    });
    // Every outcome is shown from the start, at 0, so a rate() has a series before the first job.
    for (const outcome of OUTCOMES) this.processed.inc({ outcome }, 0);
    this.running = new Gauge({ name: 'notifier_deliveries_in_flight', help: 'Delivery jobs being processed right now.', registers: [registry] });
    this.duration = new Histogram({
      name: 'notifier_delivery_duration_seconds',
      help: 'How long a delivery job took (claim, send, record), by outcome.',
      labelNames: ['outcome'],
      buckets: BUCKETS,
      registers: [registry],
    });
  }

  /** Runs one job's work, counting it in flight meanwhile and by outcome after. */
  async track(work: () => Promise<AttemptReport>): Promise<AttemptReport> {
    this.inFlightCount += 1;
    this.running.set(this.inFlightCount);
    const end = this.duration.startTimer();
    try {
      const report = await work();
      this.processed.inc({ outcome: report.outcome });
      end({ outcome: report.outcome });
      return report;
    } catch (err) {
      this.processed.inc({ outcome: 'error' });
      end({ outcome: 'error' });
      throw err;
    } finally {
      this.inFlightCount -= 1;
      this.running.set(this.inFlightCount);
    }
  }

  inFlight(): number {
    return this.inFlightCount;
  }
}

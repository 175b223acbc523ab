/**
 * The notifier's Prometheus metrics, kept by hand (a handful of counters does not need a client library):
 * delivery jobs processed by outcome, and jobs in flight. Served as text at GET /metrics.
 */
import { ATTEMPT_OUTCOMES, type AttemptOutcome, type AttemptReport } from '@pi/common';

/** `error`: the job threw (the database failed); BullMQ retries it. */
export type ProcessedOutcome = AttemptOutcome | 'error';

const OUTCOMES: ProcessedOutcome[] = [...ATTEMPT_OUTCOMES, 'error'];

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export class DeliveryMetrics {
  private readonly processed = new Map<ProcessedOutcome, number>(OUTCOMES.map((o) => [o, 0]));
  private running = 0;

  /** Runs one job's work, counting it in flight meanwhile and by outcome after. */
  async track(work: () => Promise<AttemptReport>): Promise<AttemptReport> {
    this.running += 1;
    try {
      const report = await work();
      this.record(report.outcome);
      return report;
    } catch (err) {
      this.record('error');
      throw err;
    } finally {
      this.running -= 1;
    }
  }

  record(outcome: ProcessedOutcome): void {
    this.processed.set(outcome, (this.processed.get(outcome) ?? 0) + 1);
  }

  count(outcome: ProcessedOutcome): number {
    return this.processed.get(outcome) ?? 0;
  }

  inFlight(): number {
    return this.running;
  }

  /** Prometheus text exposition format 0.0.4. */
  render(): string {
    const lines = [
      '# HELP notifier_deliveries_processed_total Delivery jobs processed by this notifier, by outcome.',
      '# TYPE notifier_deliveries_processed_total counter',
      ...OUTCOMES.map((o) => `notifier_deliveries_processed_total{outcome="${o}"} ${this.count(o)}`),
      '# HELP notifier_deliveries_in_flight Delivery jobs being processed right now.',
      '# TYPE notifier_deliveries_in_flight gauge',
      `notifier_deliveries_in_flight ${this.running}`,
    ];
    return `${lines.join('\n')}\n`;
  }
}

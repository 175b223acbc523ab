/**
 * `last_used_at` and `usage_count` of API keys, written behind: requests add to an in-memory tally that is
 * flushed in one UPDATE every API_KEY_USAGE_FLUSH_MS (≤ 2 s). A failed flush puts the tally back, and
 * `stop()` flushes what is left on shutdown, so no use is lost.
 */
import type { Sequelize } from 'sequelize';
import type { Logger } from '@pi/common';

interface Tally {
  count: number;
  lastUsedAt: Date;
}

export class UsageRecorder {
  private tallies = new Map<string, Tally>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sequelize: Sequelize,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  record(keyId: string, at = new Date()): void {
    const tally = this.tallies.get(keyId);
    if (tally) {
      tally.count += 1;
      tally.lastUsedAt = at;
    } else {
      this.tallies.set(keyId, { count: 1, lastUsedAt: at });
    }
  }

  /** Writes the current tallies; concurrent calls run one after another. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeTallies());
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  private async writeTallies(): Promise<void> {
    if (this.tallies.size === 0) return;
    const batch = this.tallies;
    this.tallies = new Map();
    const ids = [...batch.keys()];
    const counts = ids.map((id) => batch.get(id)!.count);
    const times = ids.map((id) => batch.get(id)!.lastUsedAt.toISOString());
    try {
      await this.sequelize.query(
        `UPDATE api_keys k
            SET usage_count = k.usage_count + u.n,
                last_used_at = GREATEST(k.last_used_at, u.t)
           FROM unnest($1::uuid[], $2::bigint[], $3::timestamptz[]) AS u(id, n, t)
          WHERE k.id = u.id`,
        { bind: [ids, counts, times] },
      );
    } catch (err) {
      this.logger.error({ err }, 'api key usage flush failed; will retry');
      for (const [id, tally] of batch) {
        const current = this.tallies.get(id);
        if (current) current.count += tally.count;
        else this.tallies.set(id, tally);
      }
    }
  }
}

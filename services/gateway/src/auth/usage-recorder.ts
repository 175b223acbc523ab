/**
 * `last_used_at` and `usage_count` of API keys, written behind: requests add to an in-memory tally that is
 * flushed in one UPDATE every API_KEY_USAGE_FLUSH_MS (≤ 2 s). A failed flush puts the tally back, and so does
 * one that found a key locked by a change, and `stop()` flushes what is left on shutdown, so no use is lost.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
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

  /**
   * Writes the current tallies; concurrent calls run one after another. A key that a change holds locked is
   * left for the next flush, except at `stop`, which waits for it: nothing is left to count after it.
   */
  flush({ waitForLocks = false } = {}): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeTallies(waitForLocks));
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush({ waitForLocks: true });
  }

  private async writeTallies(waitForLocks: boolean): Promise<void> {
    if (this.tallies.size === 0) return;
    const batch = this.tallies;
    this.tallies = new Map();
    const ids = [...batch.keys()];
    const counts = ids.map((id) => batch.get(id)!.count);
    const times = ids.map((id) => batch.get(id)!.lastUsedAt.toISOString());
    let written: Set<string>;
    try {
      // SKIP LOCKED: a key that a change holds (a rotation, a sign-in) is left for the next flush instead of
      // waited for, so the flush never waits on a row lock and can never be half of a deadlock.
      const rows = await this.sequelize.query<{ id: string }>(
        `WITH free AS (SELECT id FROM api_keys WHERE id = ANY ($1::uuid[]) ORDER BY id FOR NO KEY UPDATE ${waitForLocks ? '' : 'SKIP LOCKED'})
         UPDATE api_keys k
            SET usage_count = k.usage_count + u.n,
                last_used_at = GREATEST(k.last_used_at, u.t)
           FROM unnest($1::uuid[], $2::bigint[], $3::timestamptz[]) AS u(id, n, t)
          WHERE k.id = u.id AND k.id IN (SELECT id FROM free)
          RETURNING k.id`,
        { bind: [ids, counts, times], type: QueryTypes.SELECT },
      );
      written = new Set(rows.map((row) => row.id));
    } catch (err) {
      this.logger.error({ err }, 'api key usage flush failed; will retry');
      written = new Set();
    }
    this.putBack(batch, written);
  }

  /** Tallies of `batch` not in `written` go back, added to what was counted meanwhile. */
  private putBack(batch: Map<string, Tally>, written: Set<string>): void {
    for (const [id, tally] of batch) {
      if (written.has(id)) continue;
      const current = this.tallies.get(id);
      if (current) {
        current.count += tally.count;
        if (tally.lastUsedAt > current.lastUsedAt) current.lastUsedAt = tally.lastUsedAt;
      } else this.tallies.set(id, tally);
    }
  }
}

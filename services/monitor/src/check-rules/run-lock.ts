/**
 * The advisory lock that keeps two `check_rules` runs from overlapping: a session-level lock on a connection
 * of its own, held for the whole run.
 *
 * PostgreSQL may drop that connection mid-run (a restart, a failover, an administrator terminating it). The
 * client then never throws an unhandled `'error'` (libs/common pg-client.ts); the lock is gone with the
 * session, so the run takes it again on a new connection and carries on. Should another run have taken it
 * in between, the two overlap for the rest of this one, which is safe: events are unique per (rule, product,
 * batch) by index, and a delivery is attempted only by the worker that locks its row while it is due.
 */
import { ResilientClient, connectionFailureOf, createPgClient } from '@pi/common/core';

/** The lock of one company check (run.ts); a recorded run (recorded-run.ts) holds another one around all of them. */
export const RUN_LOCK_ID = 7_310_442;
const ATTEMPTS = 5;

export class RunLock {
  private client?: ResilientClient;
  private released = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly lockId: number = RUN_LOCK_ID,
  ) {}

  /** Takes the lock; false when another run holds it. A lost connection is retried. */
  async acquire(): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.tryToLock();
      } catch (err) {
        if (!connectionFailureOf(err) || attempt >= ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  /** Lets go of the lock (never throws: a lock whose connection is gone is already released). */
  async release(): Promise<void> {
    this.released = true;
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    await (client.query('SELECT pg_advisory_unlock($1)', [this.lockId]) as Promise<unknown>).catch(() => {});
    await client.end().catch(() => {});
  }

  private async tryToLock(): Promise<boolean> {
    const client: ResilientClient = createPgClient({ connectionString: this.databaseUrl, application_name: 'pi-check-rules' }, () => this.lost(client));
    try {
      await client.connect();
      const { rows } = (await client.query('SELECT pg_try_advisory_lock($1) AS locked', [this.lockId])) as { rows: Array<{ locked: boolean }> };
      if (!rows[0].locked || this.released) {
        await client.end();
        return false;
      }
      this.client = client;
      return true;
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
  }

  /** The lock's connection failed: take the lock again for the rest of the run, if the run still goes on. */
  private lost(client: ResilientClient) {
    if (client !== this.client || this.released) return;
    this.client = undefined;
    void client.end().catch(() => {});
    void this.acquire().catch(() => {});
  }
}

/**
 * Database faults for the fault suites: PostgreSQL sessions of the run's own test database terminated with
 * `pg_terminate_backend`, chosen by `application_name` (every process names its connections `pi-<process>`),
 * so nothing outside this run's database, and nothing of this run but the processes named, is touched.
 */
import { Client } from 'pg';
import { testDatabaseUrl } from './hooks';
import { sleep } from './wait';

/** A connection of the test's own for terminating others (it never terminates itself). */
export class SessionKiller {
  private constructor(private readonly client: Client) {}

  static async open(): Promise<SessionKiller> {
    const client = new Client({ connectionString: testDatabaseUrl(), application_name: 'pi-test-fault-injector' });
    client.on('error', () => {});
    await client.connect();
    return new SessionKiller(client);
  }

  /**
   * Terminates every session of the named applications on the test database; answers how many. With
   * `waitMs`, waits up to that long for each backend to exit (pg_terminate_backend alone only signals it).
   */
  async terminate(applicationNames: string[], extraCondition = 'true', waitMs = 0): Promise<number> {
    const { rows } = await this.client.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid, $2))::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = ANY($1) AND pid <> pg_backend_pid() AND ${extraCondition}`,
      [applicationNames, waitMs],
    );
    return rows[0].n;
  }

  /**
   * Terminates the named sessions that are idle now, and returns once their backends are gone. Without the
   * wait, a request sent at once could still begin on a backend that is about to die and lose it in the middle
   * of its transaction: a connection dropped while in use, not while idle (database-storm's flake).
   */
  async terminateIdle(applicationNames: string[]): Promise<number> {
    return this.terminate(applicationNames, "state = 'idle'", 5000);
  }

  /** Sessions of the named applications that match `condition` (a pg_stat_activity predicate). */
  async sessions(applicationNames: string[], condition = 'true'): Promise<number> {
    const { rows } = await this.client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = ANY($1) AND pid <> pg_backend_pid() AND ${condition}`,
      [applicationNames],
    );
    return rows[0].n;
  }

  /** The process ids of the sessions of the named applications on the test database. */
  async pids(applicationNames: string[]): Promise<number[]> {
    const { rows } = await this.client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = ANY($1) AND pid <> pg_backend_pid()`,
      [applicationNames],
    );
    return rows.map((r) => r.pid);
  }

  /** Until `stop()`: terminates the named sessions every `minMs`–`maxMs`; counts the rounds and the sessions. */
  storm(applicationNames: string[], minMs: number, maxMs: number): { stop(): Promise<{ rounds: number; terminated: number }> } {
    let running = true;
    let rounds = 0;
    let terminated = 0;
    const loop = (async () => {
      while (running) {
        terminated += await this.terminate(applicationNames);
        rounds += 1;
        await sleep(minMs + Math.random() * (maxMs - minMs));
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
        return { rounds, terminated };
      },
    };
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => {});
  }
}

/**
 * Holding a lock from outside the system, to line concurrent requests up behind it: a test locks a row (or
 * takes an advisory lock the system takes), sends requests that will wait on it, waits until they do, then
 * lets go and sees how they finish.
 */
import { Client } from 'pg';
import { testDatabaseUrl } from './hooks';

export interface HeldLock {
  /** Resolves once `n` sessions of the test database are waiting on a lock (fails after about 2 s). */
  waitForWaiters(n: number): Promise<void>;
  /** Ends the locking transaction and its connection. */
  release(): Promise<void>;
}

/** Runs `lockingSelect` (a `SELECT … FOR UPDATE`, say) in a transaction that stays open until `release`. */
export async function holdLock(lockingSelect: string, bind: unknown[]): Promise<HeldLock> {
  const blocker = new Client({ connectionString: testDatabaseUrl() });
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query(lockingSelect, bind);
  let released = false;
  // One query at a time on the connection: a wait may still be looking when the test lets go.
  let lastQuery: Promise<unknown> = Promise.resolve();
  const ask = (text: string) => {
    const answer = lastQuery.then(() => blocker.query<{ n: number }>(text));
    lastQuery = answer.catch(() => undefined);
    return answer;
  };
  return {
    async waitForWaiters(n) {
      // Seen twice in a row, 10 ms apart: a request that waits on the held lock stays waiting, while a brief
      // wait elsewhere (on the gateway's usage flush, say) is over by the next look.
      let seen = 0;
      for (let i = 0; i < 200 && !released; i++) {
        // Inside a transaction pg_stat_activity is a snapshot taken once: clear it before each look.
        await ask('SELECT pg_stat_clear_snapshot()');
        const r = await ask("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
        seen = r.rows[0].n >= n ? seen + 1 : 0;
        if (seen === 2) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(released ? `the lock was let go before ${n} sessions waited on it` : `never saw ${n} sessions waiting on a lock`);
    },
    async release() {
      released = true;
      await ask('COMMIT').catch(() => undefined);
      await blocker.end();
    },
  };
}

/**
 * Sends `requests` one after another, each once every one before it waits on a lock (the held one, or one it
 * queues behind), then lets go of `lock`; answers what each request answered, in order.
 */
export async function lineUpBehind<R>(lock: HeldLock, requests: Array<() => Promise<R>>): Promise<R[]> {
  const answers: Array<Promise<R>> = [];
  try {
    for (const request of requests) {
      answers.push(request());
      await lock.waitForWaiters(answers.length);
    }
  } finally {
    await lock.release();
  }
  return Promise.all(answers);
}

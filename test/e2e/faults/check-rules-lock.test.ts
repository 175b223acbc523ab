/**
 * The advisory lock that keeps two `check_rules` runs apart, when PostgreSQL drops its connection mid-run
 * (issue 13 §1): the process does not crash on the connection's error, the run takes the lock again on a new
 * connection, and releasing it afterwards never throws.
 */
import { expect } from 'chai';
import { RunLock } from '@pi/monitor';
import { testDatabaseUrl } from '../../support/hooks';
import { SessionKiller } from '../../support/pg-faults';
import { eventually } from '../../support/wait';

describe('faults: the check_rules run lock when PostgreSQL drops its connection', function () {
  this.timeout(20_000);
  let killer: SessionKiller;
  /** A filter on sessions: none of `gone` (sessions terminated but perhaps still listed). */
  const notAmong = (gone: number[]) => `NOT pid = ANY('{${gone.join(',')}}'::int[])`;
  /** Sessions of check_rules holding an advisory lock, none of `gone`. */
  const heldBy = (gone: number[] = []) =>
    killer.sessions(['pi-check-rules'], `pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted) AND ${notAmong(gone)}`);

  before(async () => {
    killer = await SessionKiller.open();
  });

  after(async () => {
    await killer.close();
  });

  it('takes the lock again on a new connection, keeps a second run out, and releases it cleanly', async () => {
    const run = new RunLock(testDatabaseUrl());
    const other = new RunLock(testDatabaseUrl());
    let otherGotIn = false;
    expect(await run.acquire()).to.equal(true);
    try {
      expect(await heldBy()).to.equal(1);
      const terminated = await killer.pids(['pi-check-rules']);
      expect(await killer.terminate(['pi-check-rules'])).to.equal(1);
      // An unhandled 'error' of the lock's client would crash this process (and mocha) here. The terminated
      // session can stay listed, lock and all, for a moment: only a new session holding it counts.
      await eventually(
        async () => (await heldBy(terminated)) === 1 && (await killer.sessions(['pi-check-rules'], notAmong(terminated))) === 1,
        'the lock to be taken again',
      );
      otherGotIn = await other.acquire();
      expect(otherGotIn, 'a second run is kept out').to.equal(false);
    } finally {
      await run.release();
      // Were the second run let in, it must not keep the lock from the suites that run after this one.
      if (otherGotIn) await other.release();
    }
    expect(await heldBy()).to.equal(0);
    expect(await other.acquire(), 'free once released').to.equal(true);
    await other.release();
    // A lock whose connection is gone is released without an error.
    const lost = new RunLock(testDatabaseUrl());
    expect(await lost.acquire()).to.equal(true);
    await killer.terminate(['pi-check-rules']);
    await lost.release();
  });
});

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
  const heldBy = () => killer.sessions(['pi-check-rules'], `pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)`);

  before(async () => {
    killer = await SessionKiller.open();
  });

  after(async () => {
    await killer.close();
  });

  it('takes the lock again on a new connection, keeps a second run out, and releases it cleanly', async () => {
    const run = new RunLock(testDatabaseUrl());
    const other = new RunLock(testDatabaseUrl());
    expect(await run.acquire()).to.equal(true);
    try {
      expect(await heldBy()).to.equal(1);
      expect(await killer.terminate(['pi-check-rules'])).to.equal(1);
      // An unhandled 'error' of the lock's client would crash this process (and mocha) here.
      await eventually(async () => (await heldBy()) === 1 && (await killer.sessions(['pi-check-rules'])) === 1, 'the lock to be taken again');
      expect(await other.acquire(), 'a second run is kept out').to.equal(false);
    } finally {
      await run.release();
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

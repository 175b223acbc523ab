/**
 * A database that is up but will not write (docs/api/deadlines-and-retries.md, "A database that refuses"): a
 * standby after a failover, or a managed PostgreSQL that turned itself read-only when its storage filled up.
 * Every write answers 503 `service_unavailable` in the error shape and changes nothing, reads go on, the log
 * tells the operator why, and writes work again as soon as the database takes them.
 *
 * The test database is made read-only for new sessions (`ALTER DATABASE … SET default_transaction_read_only`)
 * and the test system's idle sessions are ended, so that the next ones start read-only. The suite restores
 * both whatever happens: the worker's later suites share this database.
 */
import { expect } from 'chai';
import { Client } from 'pg';
import { post, get } from '../../support/api';
import { TestCompany, TestStock, buildStock, unique } from '../../support/builders';
import { system, testDatabaseUrl } from '../../support/hooks';
import { SessionKiller } from '../../support/pg-faults';
import { balanceOf, movementCount } from '../../support/stock';
import { eventually } from '../../support/wait';

/** The in-process test system's connections (test/support/system.ts). */
const SYSTEM_SESSIONS = ['pi-test-system'];

describe('faults: a database that is up but read-only', function () {
  this.timeout(60_000);
  let killer: SessionKiller;
  let stock: TestStock;
  let company: TestCompany;

  /**
   * New sessions of the test database are read-only (or not), and every session of the system opened before
   * the change ends, to start anew. A session busy at that moment (the gateway's usage flush, say) is ended
   * once it is idle: left in the pool, it kept the old setting for the next request that took it.
   */
  async function makeReadOnly(readOnly: boolean): Promise<void> {
    const admin = new Client({ connectionString: testDatabaseUrl(), application_name: 'pi-test-fault-injector' });
    await admin.connect();
    let changedAt: string;
    try {
      // This session too starts read-only once the database is; ALTER DATABASE is a write.
      await admin.query('SET default_transaction_read_only = off');
      const { rows } = await admin.query<{ name: string }>('SELECT current_database() AS name');
      const database = `"${rows[0].name.replace(/"/g, '""')}"`;
      await admin.query(
        readOnly ? `ALTER DATABASE ${database} SET default_transaction_read_only = on` : `ALTER DATABASE ${database} RESET default_transaction_read_only`,
      );
      changedAt = (await admin.query<{ now: string }>('SELECT clock_timestamp()::text AS now')).rows[0].now;
    } finally {
      await admin.end();
    }
    const older = `backend_start < '${changedAt}'::timestamptz`;
    await eventually(async () => {
      await killer.terminate(SYSTEM_SESSIONS, `state = 'idle' AND ${older}`, 5000);
      return (await killer.sessions(SYSTEM_SESSIONS, older)) === 0;
    }, "the system's sessions from before the change to end");
  }

  before(async () => {
    killer = await SessionKiller.open();
    stock = await buildStock({ quantity: 10 });
    company = stock.company;
  });

  after(async () => {
    await makeReadOnly(false);
    await killer.close();
  });

  it('answers every kind of write 503 service_unavailable and changes nothing, while reads go on; the log says why', async () => {
    const movements = await movementCount(company.id);
    const name = unique('Read-only store');
    const registration = unique('readonly');
    await makeReadOnly(true);

    const writes = {
      // A Sequelize insert in the inventory.
      location: await post('/api/v1/locations/', { name, type: 'WAREHOUSE' }, { token: company.token }),
      // A booking: one statement on plain pg (ledger_book).
      booking: await post(
        `/api/v1/widget/${stock.product.id}/transaction/`,
        { operation: 'subtract', quantity: 1, location_id: stock.location.id },
        { apiKey: company.apiKey },
      ),
      // A transaction of several statements in the gateway (company, user, API key).
      registration: await post('/api/v1/register/', { company_name: registration, username: registration, password: 'read-only-password-9' }),
    };
    for (const [what, res] of Object.entries(writes)) {
      expect({ what, status: res.status, code: res.body.code }, JSON.stringify(res.body)).to.deep.equal({ what, status: 503, code: 'service_unavailable' });
      expect(res.body.error).to.equal('The database is unavailable; nothing was changed. Try again shortly.');
      expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
    }

    const locations = await get('/api/v1/locations/?page_size=500', { token: company.token });
    expect(locations.status, 'a read goes on').to.equal(200);
    expect(locations.body.results.map((l: { name: string }) => l.name)).to.not.include(name);
    expect(await balanceOf(stock.product.id, stock.location.id)).to.equal(10);
    expect(await movementCount(company.id)).to.equal(movements);

    const refusals = system()
      .logs.lines.map((line) => JSON.parse(line) as { msg?: string; cause?: string; request_id?: string })
      .filter((line) => line.msg === 'the database refused the request');
    expect(refusals.map((line) => line.request_id)).to.include.members(Object.values(writes).map((res) => res.headers.get('x-request-id')));
    expect(refusals[0].cause).to.match(/Cause: cannot execute \w+ in a read-only transaction \(25006\)$/);
  });

  it('takes writes again once the database does', async () => {
    await makeReadOnly(false);
    const created = await post('/api/v1/locations/', { name: unique('Writable again'), type: 'WAREHOUSE' }, { token: company.token });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const booked = await post(
      `/api/v1/widget/${stock.product.id}/transaction/`,
      { operation: 'subtract', quantity: 1, location_id: stock.location.id },
      { apiKey: company.apiKey },
    );
    expect(booked.status, JSON.stringify(booked.body)).to.equal(200);
    expect(await balanceOf(stock.product.id, stock.location.id)).to.equal(9);
  });
});

/**
 * The database layer every process uses (libs/common connectDatabase), against the run's real PostgreSQL,
 * with its sessions terminated by `pg_terminate_backend` (issue 13, docs/api/deadlines-and-retries.md):
 * a dropped connection never throws an unhandled error, reads and transactions that failed before COMMIT
 * are retried, a COMMIT whose answer was lost is `outcome_unknown` (never retried), and a request's deadline
 * bounds every transaction: PostgreSQL cancels what runs past it and nothing commits after it.
 *
 * Each test has a pool of its own, named `pi-fault-<n>`, so only its own sessions are terminated (without the
 * models, which stay with the test system's pool).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { AppError, Database, Deadline, DeadlineExceededError, OutcomeUnknownError, ResilientClient, connectDatabase, runWithDeadline } from '@pi/common';
import { testDatabaseUrl } from '../../support/hooks';
import { SessionKiller } from '../../support/pg-faults';
import { eventually, sleep } from '../../support/wait';

const PROBE = `fault_probe_${randomBytes(4).toString('hex')}`;

async function expectRejection<T extends Error>(promise: Promise<unknown>, type: new (...args: any[]) => T): Promise<T> {
  try {
    await promise;
  } catch (err) {
    expect(err, String((err as Error).stack)).to.be.instanceOf(type);
    return err as T;
  }
  throw new Error(`expected a ${type.name}`);
}

describe('faults: the database layer when PostgreSQL drops connections', function () {
  this.timeout(30_000);
  let killer: SessionKiller;
  let app: string;
  let db: Database;
  const rows = async (where = 'true') =>
    Number((await db.sequelize.query<{ n: string }>(`SELECT count(*) AS n FROM ${PROBE} WHERE ${where}`, { type: QueryTypes.SELECT }))[0].n);

  before(async () => {
    killer = await SessionKiller.open();
    const setup = connectDatabase({ url: testDatabaseUrl(), poolMax: 1, withModels: false });
    // A table whose inserts can be made to sit in COMMIT (a deferred trigger) or in the statement itself
    // (`slow` rows), so that a session can be terminated exactly there.
    await setup.sequelize.query(`
      CREATE TABLE ${PROBE} (id serial PRIMARY KEY, label text NOT NULL, slow text);
      CREATE SEQUENCE ${PROBE}_once;
      CREATE FUNCTION ${PROBE}_sleep() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          -- 'once': only the first such row ever waits (a sequence is not rolled back with its transaction).
          IF NEW.slow IS NOT NULL AND (NEW.label NOT LIKE 'once-%' OR nextval('${PROBE}_once') = 1) THEN PERFORM pg_sleep(10); END IF;
          RETURN NULL;
        END $$;
      CREATE CONSTRAINT TRIGGER ${PROBE}_at_commit AFTER INSERT ON ${PROBE} DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (NEW.slow = 'commit') EXECUTE FUNCTION ${PROBE}_sleep();
      CREATE TRIGGER ${PROBE}_in_statement AFTER INSERT ON ${PROBE}
        FOR EACH ROW WHEN (NEW.slow = 'statement') EXECUTE FUNCTION ${PROBE}_sleep();`);
    await setup.close();
  });

  beforeEach(() => {
    app = `pi-fault-${randomBytes(4).toString('hex')}`;
    db = connectDatabase({ url: testDatabaseUrl(), poolMax: 2, applicationName: app, withModels: false });
  });

  afterEach(async () => {
    await db.close();
  });

  after(async () => {
    const cleanup = connectDatabase({ url: testDatabaseUrl(), poolMax: 1, withModels: false });
    await cleanup.sequelize.query(`DROP TABLE IF EXISTS ${PROBE}; DROP FUNCTION IF EXISTS ${PROBE}_sleep(); DROP SEQUENCE IF EXISTS ${PROBE}_once`);
    await cleanup.close();
    await killer.close();
  });

  it('a client whose idle connection is terminated neither throws nor stays usable, and the process lives on', async () => {
    const client = new ResilientClient({ connectionString: testDatabaseUrl(), application_name: app });
    await client.connect();
    expect(await killer.terminate([app])).to.equal(1);
    // A plain pg.Client here would emit an 'error' nobody listens to, which Node throws: mocha would crash.
    await eventually(() => client._invalid, 'the client to notice its connection is gone');
    await client.end().catch(() => {});
  });

  it('a read on a pooled connection that was terminated while idle is answered, not failed', async () => {
    await db.sequelize.query('SELECT 1', { type: QueryTypes.SELECT });
    expect(await killer.terminate([app])).to.be.greaterThan(0);
    // At once, before the pool can have noticed: the read goes out on the dead connection and is retried.
    const [answer] = await db.sequelize.query<{ n: number }>('SELECT 41 + 1 AS n', { type: QueryTypes.SELECT });
    expect(answer.n).to.equal(42);
  });

  it('a transaction whose connection dies before COMMIT is run again whole, and commits once', async () => {
    const label = `retried-${app}`;
    let runs = 0;
    const result = await db.sequelize.transaction(async (transaction) => {
      runs += 1;
      await db.sequelize.query(`INSERT INTO ${PROBE} (label) VALUES ($1)`, { bind: [label], transaction });
      if (runs === 1) {
        await killer.terminate([app]);
        await sleep(100);
        // The connection is gone: this statement fails, and the transaction with it.
        await db.sequelize.query('SELECT 1', { transaction });
      }
      return 'done';
    });
    expect(result).to.equal('done');
    expect(runs).to.equal(2);
    expect(await rows(`label = '${label}'`)).to.equal(1);
  });

  it('a COMMIT whose connection dies before its answer is outcome_unknown (503), never retried', async () => {
    const label = `commit-lost-${app}`;
    let runs = 0;
    const committing = db.sequelize.transaction(async (transaction) => {
      runs += 1;
      await db.sequelize.query(`INSERT INTO ${PROBE} (label, slow) VALUES ($1, 'commit')`, { bind: [label], transaction });
    });
    // The deferred trigger holds COMMIT in the server: terminate the session right there.
    await eventually(() => killer.sessions([app], `state = 'active' AND query ILIKE 'COMMIT%'`), 'the transaction to be in COMMIT');
    await killer.terminate([app]);
    const err = await expectRejection(committing, OutcomeUnknownError);
    expect(err).to.include({ status: 503, code: 'outcome_unknown' });
    expect(err.message).to.include('same Idempotency-Key');
    expect(runs, 'never run a second time: it might have committed').to.equal(1);
    expect(await rows(`label = '${label}'`)).to.equal(0);
  });

  it('a write outside a transaction whose connection dies while it runs is made again, once', async () => {
    const label = `once-${app}`;
    const writing = db.sequelize.query(`INSERT INTO ${PROBE} (label, slow) VALUES ($1, 'statement')`, { bind: [label] });
    await eventually(() => killer.sessions([app], `state = 'active' AND query ILIKE 'INSERT%'`), 'the insert to run');
    await killer.terminate([app]);
    await writing;
    expect(await rows(`label = '${label}'`)).to.equal(1);
  });

  it('a write outside a transaction whose COMMIT loses its answer is outcome_unknown, not made again', async () => {
    const label = `write-lost-${app}`;
    const writing = db.sequelize.query(`INSERT INTO ${PROBE} (label, slow) VALUES ($1, 'commit')`, { bind: [label] });
    await eventually(() => killer.sessions([app], `state = 'active' AND query ILIKE 'COMMIT%'`), 'the write to be in COMMIT');
    await killer.terminate([app]);
    await expectRejection(writing, OutcomeUnknownError);
    expect(await rows(`label = '${label}'`)).to.equal(0);
  });

  it('under a deadline, a transaction carries statement and idle timeouts of the time left, and none outside it', async () => {
    const settings = () =>
      db.sequelize.transaction((transaction) =>
        db.sequelize.query<{ name: string; ms: string }>(
          "SELECT name, setting AS ms FROM pg_settings WHERE name IN ('statement_timeout', 'idle_in_transaction_session_timeout') ORDER BY name",
          { type: QueryTypes.SELECT, transaction },
        ),
      );
    const bounded = await runWithDeadline(new Deadline(Date.now() + 5000), settings);
    expect(bounded.map((s) => s.name)).to.deep.equal(['idle_in_transaction_session_timeout', 'statement_timeout']);
    for (const { ms } of bounded) expect(Number(ms)).to.be.within(1, 5000);
    const free = await settings();
    expect(free.map((s) => s.ms)).to.deep.equal(['0', '0']);
  });

  it('PostgreSQL cancels a statement that runs past the deadline; the transaction is rolled back: 503 service_unavailable', async () => {
    const label = `too-slow-${app}`;
    const started = Date.now();
    const err = await expectRejection(
      runWithDeadline(new Deadline(Date.now() + 700), () =>
        db.sequelize.transaction(async (transaction) => {
          await db.sequelize.query(`INSERT INTO ${PROBE} (label, slow) VALUES ($1, 'statement')`, { bind: [label], transaction });
        }),
      ),
      DeadlineExceededError,
    );
    expect(err).to.include({ status: 503, code: 'service_unavailable' });
    expect(Date.now() - started, 'cancelled at the deadline, not after the 10 s the statement would take').to.be.below(5000);
    expect(await rows(`label = '${label}'`)).to.equal(0);
  });

  it('work that outlives the deadline is never committed, and a write is not started past it', async () => {
    const label = `late-${app}`;
    const deadline = new Deadline(Date.now() + 300);
    await expectRejection(
      runWithDeadline(deadline, () =>
        db.sequelize.transaction(async (transaction) => {
          await db.sequelize.query(`INSERT INTO ${PROBE} (label) VALUES ($1)`, { bind: [label], transaction });
          await sleep(400); // the process was busy (or frozen) until after the deadline
        }),
      ),
      DeadlineExceededError,
    );
    await expectRejection(
      runWithDeadline(deadline, () => db.sequelize.query(`INSERT INTO ${PROBE} (label) VALUES ($1)`, { bind: [label] })),
      DeadlineExceededError,
    );
    // Reads are not refused: nothing they do can outlive the request.
    await runWithDeadline(deadline, () => db.sequelize.query('SELECT 1', { type: QueryTypes.SELECT }));
    expect(await rows(`label = '${label}'`)).to.equal(0);
  });

  it('a database that cannot be reached answers 503 service_unavailable after a few quick retries', async () => {
    const nowhere = new URL(testDatabaseUrl());
    nowhere.port = '1'; // nothing listens there
    const unreachable = connectDatabase({ url: nowhere.toString(), poolMax: 1, withModels: false });
    try {
      const err = await expectRejection(unreachable.sequelize.query('SELECT 1', { type: QueryTypes.SELECT }), AppError);
      expect(err).to.include({ status: 503, code: 'service_unavailable' });
      const write = await expectRejection(
        unreachable.sequelize.transaction(() => Promise.resolve()),
        AppError,
      );
      expect(write).to.include({ status: 503, code: 'service_unavailable' });
    } finally {
      await unreachable.close();
    }
  });
});

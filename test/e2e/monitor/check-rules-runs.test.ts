/**
 * The run log: every recorded check_rules run keeps each company's own numbers, and
 * GET /api/v1/check-rules/runs/ shows a company its runs and nothing of another company's. Runs are scoped to
 * the test's companies (`companyId`), since the test database is shared by every suite.
 */
import { expect } from 'chai';
import { Client } from 'pg';
import { loadMonitorSettings, RUNS_KEPT, runCheckRules } from '@pi/monitor';
import { get } from '../../support/api';
import { expectValidationError } from '../../support/assertions';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct, buildUser } from '../../support/builders';
import { system, testDatabaseUrl } from '../../support/hooks';
import { count, query } from '../../support/sql';
import { Receiver, startReceiver } from '../../support/receiver';
import { buildChannel } from './helpers';

/** check-rules/run.ts: the advisory lock around each company's check; recorded-run.ts: the one around a whole run. */
const RUN_LOCK_ID = 7_310_442;
const RECORDED_RUN_LOCK_ID = 7_310_443;

const settings = () =>
  loadMonitorSettings({ NODE_ENV: 'test', SECRET_ENCRYPTION_KEY: system().secretEncryptionKey, ALLOW_LOOPBACK_WEBHOOKS: 'true', EMAIL_BACKEND: 'console' });
const record = (company: TestCompany, trigger: 'scheduler' | 'command' = 'command') =>
  runCheckRules(system().db.sequelize, testDatabaseUrl(), settings(), { companyId: company.id, trigger });
const runsOf = async (company: TestCompany, query = '') => {
  const res = await get(`/api/v1/check-rules/runs/${query}`, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body as {
    count: number;
    next: string | null;
    results: Array<{ id: string; trigger: string; status: string; started_at: string; finished_at: string; results: Record<string, number> | null }>;
  };
};

describe('GET /api/v1/check-rules/runs/', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  it("shows each company its own runs with its own numbers, newest first, and never another company's", async () => {
    const alerting = await buildCompany();
    const product = await buildProduct(alerting, { engine_config: { engine_type: 'counter', min_stock: 5 } });
    await buildProduct(alerting, { engine_config: { engine_type: 'counter' } });
    const shelf = await buildLocation(alerting);
    await addStock(alerting, product.id, shelf.id, 2);
    await buildChannel(alerting, { url: receiver.url, events: ['THRESHOLD'] });
    const quiet = await buildCompany();
    await buildProduct(quiet, { engine_config: { engine_type: 'counter' } });
    const untouched = await buildCompany();

    const first = await record(alerting, 'scheduler');
    expect(first.recordError).to.equal(undefined);
    expect(first.companies.map((c) => c.status)).to.deep.equal(['completed']);
    const second = await record(alerting);
    const quietRun = await record(quiet);
    expect(receiver.requests).to.have.length(1);

    const mine = await runsOf(alerting);
    expect(mine.count).to.equal(2);
    expect(mine.results.map((r) => r.id)).to.deep.equal([second.id, first.id]);
    expect(mine.results[1]).to.deep.include({ trigger: 'scheduler', status: 'completed' });
    expect(mine.results[1].results).to.deep.equal({
      products_evaluated: 2,
      events_opened: 1,
      events_resolved: 0,
      deliveries_created: 1,
      due_deliveries: 0,
      deliveries_sent: 1,
      deliveries_retrying: 0,
      deliveries_failed: 0,
      deliveries_enqueued: 0,
    });
    expect(mine.results[0]).to.deep.include({ trigger: 'command', status: 'completed' });
    expect(mine.results[0].results).to.deep.include({ products_evaluated: 2, events_opened: 0, deliveries_created: 0 });
    expect(new Date(mine.results[1].finished_at).getTime()).to.be.at.least(new Date(mine.results[1].started_at).getTime());

    const theirs = await runsOf(quiet);
    expect(theirs.results.map((r) => r.id)).to.deep.equal([quietRun.id]);
    expect(theirs.results[0].results).to.deep.include({ products_evaluated: 1, events_opened: 0, deliveries_sent: 0 });
    expect(await runsOf(untouched)).to.deep.include({ count: 0, results: [] });

    // Any user of the company may look (members too), and pages work.
    const member = await buildUser(alerting);
    const page = await get('/api/v1/check-rules/runs/?page_size=1&page=2', { token: member.token });
    expect(page.status, JSON.stringify(page.body)).to.equal(200);
    expect(page.body.count).to.equal(2);
    expect(page.body.results.map((r: { id: string }) => r.id)).to.deep.equal([first.id]);
  });

  it('records a company whose check another run holds as skipped, without numbers', async () => {
    const company = await buildCompany();
    await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
    const holder = new Client({ connectionString: testDatabaseUrl() });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [RUN_LOCK_ID]);
      const run = await record(company);
      expect(run.companies.map((c) => c.status)).to.deep.equal(['skipped']);
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [RUN_LOCK_ID]);
      await holder.end();
    }
    const [shown] = (await runsOf(company)).results;
    expect(shown).to.deep.include({ status: 'skipped', results: null });
    expect(await count('SELECT count(*) FROM event_log WHERE company_id = $1', [company.id])).to.equal(0);
  });

  it('does nothing, and records nothing, while another recorded run is going on', async () => {
    const company = await buildCompany();
    await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
    const holder = new Client({ connectionString: testDatabaseUrl() });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [RECORDED_RUN_LOCK_ID]);
      const run = await record(company);
      expect(run).to.deep.include({ skipped: true, id: null, companies: [] });
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [RECORDED_RUN_LOCK_ID]);
      await holder.end();
    }
    expect(await runsOf(company)).to.deep.include({ count: 0 });
    expect(await count('SELECT count(*) FROM event_log WHERE company_id = $1', [company.id])).to.equal(0);
    const after = await record(company);
    expect(after.skipped).to.equal(false);
    expect(await count('SELECT count(*) FROM event_log WHERE company_id = $1', [company.id])).to.equal(1);
  });

  it(`keeps only the latest ${RUNS_KEPT} runs`, async () => {
    const company = await buildCompany();
    // Older runs than any real one, each of which reached this company.
    await system().db.sequelize.query(
      `WITH runs AS (
         INSERT INTO check_rules_runs (trigger, started_at, finished_at)
         SELECT 'command', timestamptz '2000-01-01 00:00Z' + g * interval '1 minute', timestamptz '2000-01-01 00:00Z' + g * interval '1 minute'
           FROM generate_series(1, $1) AS g RETURNING id, started_at)
       INSERT INTO check_rules_run_companies (run_id, company_id, status, started_at) SELECT id, $2, 'completed', started_at FROM runs`,
      { bind: [RUNS_KEPT + 10, company.id] },
    );
    const run = await record(company);
    expect(await count('SELECT count(*) FROM check_rules_runs')).to.equal(RUNS_KEPT);
    const left = await runsOf(company, '?page_size=500');
    expect(left.count).to.equal(left.results.length);
    expect(left.count).to.be.at.most(RUNS_KEPT);
    expect(left.results[0].id).to.equal(run.id);
    // What was cut is the oldest: the old runs left are the newest of them, without a gap.
    const [old] = await query<{ kept: number; first: number; last: number }>(
      `SELECT count(*)::int AS kept, min(extract(epoch FROM started_at - timestamptz '2000-01-01 00:00Z') / 60)::int AS first,
              max(extract(epoch FROM started_at - timestamptz '2000-01-01 00:00Z') / 60)::int AS last
         FROM check_rules_run_companies WHERE company_id = $1 AND started_at < '2001-01-01'`,
      [company.id],
    );
    expect(old.kept).to.be.below(RUNS_KEPT).and.above(0);
    expect(old).to.deep.include({ first: RUNS_KEPT + 10 - old.kept + 1, last: RUNS_KEPT + 10 });
  });

  it('refuses a bad page (400 naming it)', async () => {
    const company = await buildCompany();
    expectValidationError(await get('/api/v1/check-rules/runs/?page=0', { token: company.token }), 'page');
    expectValidationError(await get('/api/v1/check-rules/runs/?company_id=x', { token: company.token }), 'company_id');
  });
});

import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { DeliveryQueue, attemptDelivery, startDeliveryWorker, verifySignature } from '@pi/notify';
import { checkRules, loadMonitorSettings, type RunSummary } from '@pi/monitor';
import { CLOSED_PORT } from '../../support/closed-port';
import { holdLock, lineUpBehind } from '../../support/held-lock';
import { ApiResponse, del, get, post } from '../../support/api';
import { buildStock, TestCompany, addStock, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { system, testDatabaseUrl } from '../../support/hooks';
import { runToExit } from '../../support/processes';
import { CHECK_RULES_ENTRY } from '../../support/service-processes';
import { REDIS_URL, requireRedis } from '../../support/redis';
import { Receiver, startReceiver } from '../../support/receiver';
import { buildChannel } from './helpers';

const settings = () =>
  loadMonitorSettings({ NODE_ENV: 'test', SECRET_ENCRYPTION_KEY: system().secretEncryptionKey, ALLOW_LOOPBACK_WEBHOOKS: 'true', EMAIL_BACKEND: 'console' });
const run = (company: TestCompany, now = new Date()) => checkRules(system().db.sequelize, testDatabaseUrl(), settings(), { companyId: company.id, now });
const events = async (company: TestCompany) =>
  (await get('/api/v1/events/?page_size=100', { token: company.token })).body.results as Array<{
    id: string;
    status: string;
    batch_id: string | null;
    message: string;
    rule_id: string;
    product_id: string;
  }>;

describe('check_rules: THRESHOLD', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  it('opens one event and one signed delivery per channel on a crossing, nothing on the next run, resolves when stock recovers, opens again on a new crossing', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 5 } });
    const shelf = await buildLocation(company);
    await addStock(company, product.id, shelf.id, 3);
    const channel = await buildChannel(company, { url: receiver.url, events: ['THRESHOLD'] });
    const other = await startReceiver();
    await buildChannel(company, { url: other.url, events: ['THRESHOLD'] });
    await buildChannel(company, { url: other.url, events: ['DATE_OFFSET'] }); // not subscribed

    const first = await run(company);
    expect(first).to.include({ skipped: false, companies: 1, products_evaluated: 1, events_opened: 1, deliveries_created: 2, delivered: 2 });
    const [event] = await events(company);
    expect(event).to.include({ status: 'OPEN', message: `Low stock: ${product.name} (${product.sku}) has 3 pcs, below the minimum of 5 pcs.` });
    expect(receiver.requests).to.have.length(1);
    expect(other.requests).to.have.length(1);
    await other.close();

    const request = receiver.requests[0];
    expect(verifySignature(request.body, channel.secret, request.headers['x-pi-signature'] as string)).to.equal(true);
    const body = JSON.parse(request.body);
    expect(body).to.have.all.keys('event_id', 'type', 'company_id', 'product', 'payload', 'created_at');
    expect(body).to.include({ event_id: event.id, type: 'THRESHOLD', company_id: company.id });
    expect(body.product).to.deep.equal({ id: product.id, sku: product.sku, name: product.name });
    expect(body.payload).to.deep.equal({ message: event.message, severity: 'WARNING', rule_id: event.rule_id, batch_id: null, status: 'OPEN' });
    expect(new Date(body.created_at).toISOString()).to.equal(body.created_at);

    const second = await run(company);
    expect(second).to.include({ events_opened: 0, deliveries_created: 0 });
    expect(receiver.requests).to.have.length(1);

    await addStock(company, product.id, shelf.id, 10);
    expect(await run(company)).to.include({ events_resolved: 1, events_opened: 0 });
    expect((await events(company))[0].status).to.equal('RESOLVED');

    await addStock(company, product.id, shelf.id, 12, { operation: 'subtract' });
    expect(await run(company)).to.include({ events_opened: 1 });
    const all = await events(company);
    expect(all.map((e) => e.status).sort()).to.deep.equal(['OPEN', 'RESOLVED']);
    expect(receiver.requests).to.have.length(2);
  });

  it('honours max_stock and rules created through the API, and leaves an IGNORED event alone while the condition holds', async () => {
    const { company, product } = await buildStock({ quantity: 30 });
    const rule = await post(
      '/api/v1/monitoring-rules/',
      { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { max: 20 }, severity: 'CRITICAL' },
      { token: company.token },
    );
    expect(rule.status, JSON.stringify(rule.body)).to.equal(201);
    expect(await run(company)).to.include({ events_opened: 1 });
    const [event] = await events(company);
    expect(event.message).to.match(/^Overstock: .* above the maximum of 20 pcs\.$/);
    expect((await post(`/api/v1/events/${event.id}/ignore/`, undefined, { token: company.token })).status).to.equal(200);
    expect(await run(company)).to.include({ events_opened: 0, events_resolved: 0 });
    expect((await events(company)).map((e) => e.status)).to.deep.equal(['IGNORED']);
  });

  it('never lets two runs overlap: a concurrent run is skipped and nothing opens twice', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
    await buildLocation(company);
    // The run that takes the lock is held at its first event (the table is locked for writes), so the other
    // certainly starts while it runs: without this a fast first run could end before the second began.
    const sequelize = system().db.sequelize;
    const blocker = await sequelize.transaction();
    let runs: Array<Promise<Awaited<ReturnType<typeof run>>>>;
    let stuckTimer: NodeJS.Timeout | undefined;
    try {
      await sequelize.query('LOCK TABLE event_log IN EXCLUSIVE MODE', { transaction: blocker });
      runs = [run(company), run(company)];
      const stuck = new Promise<'stuck'>((resolve) => (stuckTimer = setTimeout(() => resolve('stuck'), 10_000)));
      const first = await Promise.race([...runs, stuck]);
      expect(first === 'stuck' ? first : first.skipped, 'the run that finds the lock taken ends at once').to.equal(true);
    } finally {
      // Not left running for the rest of the worker's suites once a run has ended first.
      clearTimeout(stuckTimer);
      await blocker.commit();
    }
    const [a, b] = await Promise.all(runs);
    expect([a.skipped, b.skipped].sort()).to.deep.equal([false, true]);
    expect(a.events_opened + b.events_opened).to.equal(1);
    const rows = await system().db.sequelize.query('SELECT id FROM event_log WHERE product_id = $1', { bind: [product.id], type: QueryTypes.SELECT });
    expect(rows).to.have.length(1);
  });
});

describe('check_rules: a product deleted during the run', () => {
  it('opens the events of the other products and none for it, instead of failing the company (the delete came first)', async () => {
    const company = await buildCompany();
    const [kept, deleted] = [
      await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 5 } }),
      await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 5 } }),
    ];
    // The product held: its delete queues first, then the run's opening of events (after evaluating it as below its minimum).
    const lock = await holdLock('SELECT id FROM product_models WHERE id = $1 FOR UPDATE', [deleted.id]);
    const [deletedAnswer, summary] = await lineUpBehind<unknown>(lock, [
      () => del(`/api/v1/product-models/${deleted.id}/`, { token: company.token }),
      () => run(company),
    ]);
    expect((deletedAnswer as ApiResponse).status).to.equal(204);
    expect((summary as RunSummary).events_opened).to.equal(1);
    expect((await events(company)).map((e) => e.product_id)).to.deep.equal([kept.id]);
  });
});

describe('check_rules: DATE_OFFSET', () => {
  it('opens one event per batch with stock inside the window (past dates included), none for batches outside it or empty ones', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, {
      profile: 'BATCH',
      engine_config: {
        engine_type: 'batch',
        monitoring_rules: [{ trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date', days_offset: 7 } }],
      },
    });
    const shelf = await buildLocation(company);
    const tag = product.id.slice(0, 6);
    const expired = await addStock(company, product.id, shelf.id, 2, { batch: { code: `past-${tag}`, expiration_date: '2030-03-01' } });
    const soon = await addStock(company, product.id, shelf.id, 2, { batch: { code: `soon-${tag}`, expiration_date: '2030-03-15' } });
    await addStock(company, product.id, shelf.id, 2, { batch: { code: `later-${tag}`, expiration_date: '2030-04-30' } });
    const emptied = await addStock(company, product.id, shelf.id, 2, { batch: { code: `gone-${tag}`, expiration_date: '2030-03-12' } });
    await addStock(company, product.id, shelf.id, 2, { operation: 'subtract', batch_id: emptied.batch.id });

    const now = new Date('2030-03-10T12:00:00Z');
    expect(await run(company, now)).to.include({ events_opened: 2 });
    const opened = await events(company);
    expect(opened.map((e) => e.batch_id).sort()).to.deep.equal([expired.batch.id, soon.batch.id].sort());
    expect(opened.find((e) => e.batch_id === soon.batch.id)!.message).to.include('expires on 2030-03-15, in 5 day(s)');

    await addStock(company, product.id, shelf.id, 2, { operation: 'subtract', batch_id: soon.batch.id });
    expect(await run(company, now)).to.include({ events_opened: 0, events_resolved: 1 });
  });
});

describe('npm run check_rules (the command)', () => {
  it('runs against DATABASE_URL, prints a summary and exits 0', async function () {
    this.timeout(30_000);
    const company = await buildCompany();
    const product = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 2 } });
    await buildLocation(company);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: testDatabaseUrl(),
      SECRET_ENCRYPTION_KEY: system().secretEncryptionKey,
      ALLOW_LOOPBACK_WEBHOOKS: 'true',
      EMAIL_BACKEND: 'console',
    };
    delete env.REDIS_URL;
    const { code, text: out } = await runToExit(process.execPath, [CHECK_RULES_ENTRY, '--company', company.id], { env });
    expect(code, out).to.equal(0);
    expect(out).to.include('companies: 1').and.to.include('events opened: 1').and.to.include('products evaluated: 1');
    const rows = await system().db.sequelize.query('SELECT status FROM event_log WHERE product_id = $1', { bind: [product.id], type: QueryTypes.SELECT });
    expect(rows).to.deep.equal([{ status: 'OPEN' }]);
    const bad = await runToExit(process.execPath, [CHECK_RULES_ENTRY, '--company', 'not-a-uuid'], { env });
    expect(bad.code).to.equal(1);
  });
});

describe('check_rules: retries of failed deliveries', () => {
  it('retries a failed delivery on a later run once it is due (2, then 4 minutes later), and not before', async () => {
    const receiver = await startReceiver(500);
    try {
      const company = await buildCompany();
      const product = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
      await buildLocation(company);
      await buildChannel(company, { url: receiver.url, events: ['THRESHOLD'] });
      const t0 = new Date('2031-01-01T10:00:00Z');
      const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
      expect(await run(company, t0)).to.include({ events_opened: 1, retrying: 1 });
      expect(receiver.requests).to.have.length(1);
      expect(await run(company, at(1.9))).to.include({ due_deliveries: 0 });
      expect(receiver.requests).to.have.length(1);
      expect(await run(company, at(2))).to.include({ due_deliveries: 1, retrying: 1 });
      expect(receiver.requests).to.have.length(2);
      expect(await run(company, at(5.9))).to.include({ due_deliveries: 0 });
      receiver.status = 200;
      expect(await run(company, at(6))).to.include({ due_deliveries: 1, delivered: 1 });
      expect(receiver.requests).to.have.length(3);
      const [row] = await system().db.sequelize.query<{ status: string; attempts: number }>(
        'SELECT d.status, d.attempts FROM notification_deliveries d JOIN event_log e ON e.id = d.event_id WHERE e.product_id = $1',
        { bind: [product.id], type: QueryTypes.SELECT },
      );
      expect(row).to.deep.equal({ status: 'DELIVERED', attempts: 3 });
    } finally {
      await receiver.close();
    }
  });
});

describe('check_rules with the Redis queue', () => {
  before(async function () {
    await requireRedis(this, 'check_rules with the Redis queue');
  });

  it('enqueues new deliveries; when the queue loses them, the next run enqueues them again and the webhook arrives once', async function () {
    this.timeout(30_000);
    const receiver = await startReceiver();
    const names = { name: `check-rules-${randomUUID()}`, prefix: `test-${randomUUID().slice(0, 8)}` };
    const queue = new DeliveryQueue(REDIS_URL, names);
    const company = await buildCompany();
    try {
      await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
      await buildLocation(company);
      await buildChannel(company, { url: receiver.url, events: ['THRESHOLD'] });
      const queued = (now = new Date()) => checkRules(system().db.sequelize, testDatabaseUrl(), settings(), { companyId: company.id, now, queue });
      expect(await queued()).to.include({ events_opened: 1, deliveries_created: 1, enqueued: 1, delivered: 0 });
      expect(receiver.requests).to.have.length(0);

      await queue.queue.obliterate({ force: true }); // Redis lost the job
      expect(await queued()).to.include({ events_opened: 0, due_deliveries: 1, enqueued: 1 });

      const worker = startDeliveryWorker({
        redisUrl: REDIS_URL,
        ...names,
        concurrency: 2,
        handler: (id) => attemptDelivery(system().db.sequelize, id, settings(), new Date()),
      });
      try {
        const deadline = Date.now() + 10_000;
        while (receiver.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        await new Promise((r) => setTimeout(r, 300)); // a duplicate, if any, would arrive now
      } finally {
        await worker.close();
      }
      expect(receiver.requests).to.have.length(1);
      expect(await queued()).to.include({ due_deliveries: 0, enqueued: 0 });
    } finally {
      await queue.close();
      await receiver.close();
    }
  });
});

describe('check_rules while the queue is down', () => {
  it('evaluates everything and records every event, leaves the deliveries due, and reports how many wait', async function () {
    this.timeout(30_000);
    const receiver = await startReceiver();
    const company = await buildCompany();
    const down = new DeliveryQueue(`redis://127.0.0.1:${CLOSED_PORT}`, { name: `down-${randomUUID()}`, connectTimeoutMs: 300 });
    try {
      const low = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
      const brief = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
      const shelf = await buildLocation(company);
      await buildChannel(company, { url: receiver.url, events: ['THRESHOLD'] });
      const t0 = new Date();
      const first = await checkRules(system().db.sequelize, testDatabaseUrl(), settings(), { companyId: company.id, now: t0, queue: down });
      expect(first).to.include({ products_evaluated: 2, events_opened: 2, deliveries_created: 2, enqueued: 0, waiting_for_queue: 2 });
      expect(first.queue_error).to.match(/Redis is not reachable/);

      // One condition clears during the outage: its event is resolved, and still recorded with its delivery.
      await addStock(company, brief.id, shelf.id, 5);
      const second = await checkRules(system().db.sequelize, testDatabaseUrl(), settings(), {
        companyId: company.id,
        now: new Date(t0.getTime() + 1000),
        queue: down,
      });
      expect(second).to.include({ events_opened: 0, events_resolved: 1, due_deliveries: 2, waiting_for_queue: 2 });
      const rows = await system().db.sequelize.query<{ product_id: string; status: string; delivery: string }>(
        `SELECT e.product_id, e.status, d.status AS delivery FROM event_log e JOIN notification_deliveries d ON d.event_id = e.id WHERE e.company_id = $1`,
        { bind: [company.id], type: QueryTypes.SELECT },
      );
      expect(rows.map((r) => [r.product_id, r.status, r.delivery]).sort()).to.deep.equal(
        [
          [low.id, 'OPEN', 'PENDING'],
          [brief.id, 'RESOLVED', 'PENDING'],
        ].sort(),
      );
      // Without a queue (standalone), the next run sends both: every event that was raised is notified.
      expect(await run(company, new Date(t0.getTime() + 2000))).to.include({ due_deliveries: 2, delivered: 2 });
      expect(receiver.requests).to.have.length(2);
    } finally {
      await down.close();
      await receiver.close();
    }
  });

  it('counts what it really queued: a delivery whose job still waits is not counted again', async function () {
    await requireRedis(this, 'check_rules counts what it really queued');
    const names = { name: `check-rules-count-${randomUUID()}`, prefix: `test-${randomUUID().slice(0, 8)}` };
    const queue = new DeliveryQueue(REDIS_URL, names);
    try {
      const company = await buildCompany();
      await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
      await buildLocation(company);
      await buildChannel(company, { url: 'http://127.0.0.1:9/hook', events: ['THRESHOLD'] });
      const queued = () => checkRules(system().db.sequelize, testDatabaseUrl(), settings(), { companyId: company.id, queue });
      expect(await queued()).to.include({ deliveries_created: 1, enqueued: 1, already_queued: 0, waiting_for_queue: 0 });
      expect(await queued()).to.include({ due_deliveries: 1, enqueued: 0, already_queued: 1 });
      expect(await queue.queue.getWaitingCount()).to.equal(1);
    } finally {
      await queue.queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
    }
  });
});

describe('npm run check_rules with the Redis queue', () => {
  before(async function () {
    await requireRedis(this, 'npm run check_rules with the Redis queue');
  });

  it('enqueues on the DELIVERY_QUEUE_NAME and DELIVERY_QUEUE_PREFIX the notifier listens on', async function () {
    this.timeout(30_000);
    const names = { name: `check-rules-cli-${randomUUID()}`, prefix: `test-${randomUUID().slice(0, 8)}` };
    const queue = new DeliveryQueue(REDIS_URL, names);
    const receiver = await startReceiver();
    try {
      const company = await buildCompany();
      await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
      await buildLocation(company);
      await buildChannel(company, { url: receiver.url, events: ['THRESHOLD'] });
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: testDatabaseUrl(),
        REDIS_URL,
        DELIVERY_QUEUE_NAME: names.name,
        DELIVERY_QUEUE_PREFIX: names.prefix,
        SECRET_ENCRYPTION_KEY: system().secretEncryptionKey,
        ALLOW_LOOPBACK_WEBHOOKS: 'true',
        EMAIL_BACKEND: 'console',
      };
      const { code, text: out } = await runToExit(process.execPath, [CHECK_RULES_ENTRY, '--company', company.id], { env });
      expect(code, out).to.equal(0);
      expect(out).to.include('deliveries enqueued: 1 (already queued: 0)');
      expect(await queue.queue.getWaitingCount()).to.equal(1);
      expect(receiver.requests).to.have.length(0);
    } finally {
      await queue.queue.obliterate({ force: true });
      await queue.close();
      await receiver.close();
    }
  });
});

describe('delivery settings', () => {
  it('refuse ALLOW_LOOPBACK_WEBHOOKS in production, naming it, so the process does not start', () => {
    const base = { SECRET_ENCRYPTION_KEY: system().secretEncryptionKey, ALLOW_LOOPBACK_WEBHOOKS: 'true' };
    expect(() => loadMonitorSettings({ ...base, NODE_ENV: 'production' })).to.throw(/ALLOW_LOOPBACK_WEBHOOKS/);
    expect(loadMonitorSettings({ ...base, NODE_ENV: 'development' }).ALLOW_LOOPBACK_WEBHOOKS).to.equal(true);
  });
});

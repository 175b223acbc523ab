/**
 * Fault: Redis stopped, restarted empty and flushed around `check_rules` and the notifier, all real processes:
 * a private `redis-server` (never the machine's shared one), a database of this suite's own (check_rules runs
 * over every company in it), the `check_rules` command, and the notifier. What must hold:
 * - while Redis is down every company is evaluated and every event recorded, including a condition that starts
 *   and clears during the outage; the run says how many deliveries wait and exits 2;
 * - a run waits for the queue once, not once per company, and a producer fails at once after its first wait
 *   until Redis is back;
 * - the notifier survives the outage and works again once Redis is back;
 * - once Redis is back, every delivery row is delivered exactly once (the receivers count by X-PI-Event-Id),
 *   whether its job was never queued, lost in a flush, or in flight when Redis died;
 * - a notifier still stops cleanly on SIGTERM while Redis is down.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Client } from 'pg';
import { DeliveryQueue, PRODUCER_CONNECT_TIMEOUT_MS, QueueUnavailableError, encryptSecret, generateChannelSecret, parseEncryptionKey } from '@pi/notify';
import { TestDatabase, createTestDatabase } from '../../support/database';
import { NotifierProcess, alive, startNotifier } from '../../support/notifier';
import { CHECK_RULES_ENTRY } from '../../support/service-processes';
import { ROOT, runToExit } from '../../support/processes';
import { Receiver, startReceiver } from '../../support/receiver';
import { PrivateRedis, requireRedisServer } from '../../support/redis-server';
import { eventually, sleep } from '../../support/wait';

interface Seeded {
  companyId: string;
  locationId: string;
  receiver: Receiver;
}

describe('faults: Redis stopped and flushed around check_rules and the notifier', function () {
  this.timeout(120_000);
  let redis: PrivateRedis | undefined;
  let database: TestDatabase | undefined;
  let pg: Client;
  let notifier: NotifierProcess | undefined;
  const receivers: Receiver[] = [];
  const key = randomBytes(32).toString('base64');
  const queue = { DELIVERY_QUEUE_NAME: 'deliveries-faults', DELIVERY_QUEUE_PREFIX: `pi-faults-${randomBytes(3).toString('hex')}` };
  const env = () => ({
    NODE_ENV: 'test',
    DATABASE_URL: database!.url,
    REDIS_URL: redis!.url,
    SECRET_ENCRYPTION_KEY: key,
    ALLOW_LOOPBACK_WEBHOOKS: 'true',
    EMAIL_BACKEND: 'console',
    ...queue,
  });
  const checkRules = async () => {
    const started = Date.now();
    const run = await runToExit(process.execPath, [CHECK_RULES_ENTRY], { env: { PATH: process.env.PATH, ...env() }, timeoutMs: 30_000 });
    return { ...run, ms: Date.now() - started };
  };
  const startTheNotifier = () => startNotifier({ ...env(), INTERNAL_JWT_SECRET: randomBytes(32).toString('hex'), DATABASE_POOL_MAX: '4' });
  const sql = async <T extends Record<string, unknown>>(text: string, values: unknown[] = []) => (await pg.query<T>(text, values)).rows;

  async function seedCompany(name: string): Promise<Seeded> {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const [{ id: companyId }] = await sql<{ id: string }>(`INSERT INTO companies (name) VALUES ($1) RETURNING id`, [name]);
    const [{ id: locationId }] = await sql<{ id: string }>(`INSERT INTO locations (company_id, name, type) VALUES ($1, 'Shelf', 'SHELF') RETURNING id`, [
      companyId,
    ]);
    await sql(
      `INSERT INTO notification_channels (company_id, name, kind, url, events, secret_encrypted) VALUES ($1, 'Ops', 'WEBHOOK', $2, '{THRESHOLD}', $3)`,
      [companyId, receiver.url, encryptSecret(generateChannelSecret(), parseEncryptionKey(key))],
    );
    return { companyId, locationId, receiver };
  }

  /** A product with min_stock 5 and `quantity` in stock. */
  async function seedProduct(company: Seeded, sku: string, quantity: number): Promise<string> {
    const [{ id }] = await sql<{ id: string }>(
      `INSERT INTO product_models (company_id, sku, name, profile, engine_config, unit, decimals)
       VALUES ($1, $2, $2, 'STANDARD', '{"engine_type": "counter", "min_stock": 5}', 'pcs', 0) RETURNING id`,
      [company.companyId, sku],
    );
    await sql(`INSERT INTO stock_balances (company_id, product_id, location_id, quantity) VALUES ($1, $2, $3, $4)`, [
      company.companyId,
      id,
      company.locationId,
      quantity,
    ]);
    return id;
  }

  const deliveries = () =>
    sql<{ id: string; event_id: string; status: string; attempts: number }>(
      `SELECT id, event_id, status, attempts FROM notification_deliveries ORDER BY created_at, id`,
    );
  const allDelivered = async () => (await deliveries()).every((d) => d.status === 'DELIVERED');
  /** Requests per X-PI-Event-Id over every receiver. */
  const received = () => {
    const counts = new Map<string, number>();
    for (const r of receivers)
      for (const req of r.requests) counts.set(String(req.headers['x-pi-event-id']), (counts.get(String(req.headers['x-pi-event-id'])) ?? 0) + 1);
    return counts;
  };
  /** Every delivery row DELIVERED, and each one's event received exactly once. */
  async function expectExactlyOnce() {
    await eventually(allDelivered, 'every delivery to be DELIVERED', 20_000);
    await sleep(500); // a duplicate, if any, would arrive now
    const rows = await deliveries();
    const counts = received();
    expect(
      [...counts.values()].reduce((a, b) => a + b, 0),
      'requests in all',
    ).to.equal(rows.length);
    for (const d of rows) {
      expect(d, `delivery ${d.id}`).to.deep.include({ status: 'DELIVERED', attempts: 1 });
      expect(counts.get(d.event_id), `requests for event ${d.event_id}`).to.equal(1);
    }
  }

  before(async function () {
    requireRedisServer(this, 'faults: Redis stopped and flushed');
    this.timeout(60_000);
    redis = await PrivateRedis.start();
    database = await createTestDatabase();
    const migrated = await runToExit(process.execPath, ['libs/db/dist/src/migrate-cli.js'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, DATABASE_URL: database.url },
    });
    expect(migrated.code, migrated.text).to.equal(0);
    pg = new Client({ connectionString: database.url });
    await pg.connect();
  });

  after(async function () {
    this.timeout(30_000);
    if (notifier && alive(notifier)) await notifier.stop('SIGKILL', 5000).catch(() => {});
    for (const r of receivers) await r.close();
    await pg?.end().catch(() => {});
    await database?.drop();
    await redis?.stop();
  });

  it('records every event of every company while Redis is down, and delivers each one exactly once when it is back', async () => {
    const a = await seedCompany('Company A');
    const b = await seedCompany('Company B');
    await seedProduct(a, 'A-LOW', 1);
    const brief = await seedProduct(a, 'A-BRIEF', 2);
    await seedProduct(b, 'B-LOW', 0);
    notifier = await startTheNotifier();
    await eventually(async () => (await fetch(`${notifier!.url}/readyz`)).status === 200, 'the notifier to be ready');

    // Redis dies. check_rules goes on: both companies evaluated, all three events recorded, deliveries wait.
    await redis!.kill();
    const down = await checkRules();
    expect(down.code, down.text).to.equal(2);
    // The queue is waited for once in the run, not once per company (it took 10.6 s for these two companies).
    expect(down.ms, 'one wait for Redis in a run of two companies').to.be.below(2 * PRODUCER_CONNECT_TIMEOUT_MS);
    expect(down.text).to.include('companies: 2').and.include('events opened: 3').and.include('deliveries created: 3');
    expect(down.text).to.match(/deliveries waiting for the queue: 3 \(Redis is not reachable/);
    // The condition of A-BRIEF clears during the outage: resolved by the next run, still down.
    await sql(`UPDATE stock_balances SET quantity = 10 WHERE product_id = $1`, [brief]);
    const stillDown = await checkRules();
    expect(stillDown.code, stillDown.text).to.equal(2);
    expect(stillDown.text).to.include('events resolved: 1').and.include('due from earlier runs: 3').and.include('deliveries waiting for the queue: 3');
    const events = await sql<{ company_id: string; sku: string; status: string }>(
      `SELECT e.company_id, p.sku, e.status FROM event_log e JOIN product_models p ON p.id = e.product_id ORDER BY p.sku`,
    );
    expect(events.map((e) => [e.sku, e.status])).to.deep.equal([
      ['A-BRIEF', 'RESOLVED'],
      ['A-LOW', 'OPEN'],
      ['B-LOW', 'OPEN'],
    ]);
    expect((await deliveries()).map((d) => d.status)).to.deep.equal(['PENDING', 'PENDING', 'PENDING']);
    expect(alive(notifier), notifier.output()).to.equal(true);
    expect((await fetch(`${notifier.url}/readyz`)).status).to.equal(503);

    // Redis is back, empty. The next run queues the outbox; the notifier, reconnected, delivers each once.
    await redis!.start();
    const back = await checkRules();
    expect(back.code, back.text).to.equal(0);
    expect(back.text).to.include('due from earlier runs: 3').and.include('deliveries enqueued: 3 (already queued: 0)');
    await expectExactlyOnce();
    expect(received().size).to.equal(3);
    expect(a.receiver.requests).to.have.length(2);
    expect(b.receiver.requests).to.have.length(1);
  });

  it('delivers once a delivery whose job was flushed before any notifier took it', async () => {
    const b = await seedCompany('Company C');
    await seedProduct(b, 'C-LOW', 0);
    expect((await notifier!.stop('SIGTERM')).code).to.equal(0);
    const queued = await checkRules();
    expect(queued.code, queued.text).to.equal(0);
    expect(queued.text).to.include('deliveries enqueued: 1 (already queued: 0)');
    await redis!.withClient((client) => client.flushall());

    notifier = await startTheNotifier();
    await eventually(async () => (await fetch(`${notifier!.url}/readyz`)).status === 200, 'the notifier to be ready');
    await sleep(1000);
    expect(b.receiver.requests, 'the flushed job was delivered by nobody').to.have.length(0);
    const again = await checkRules();
    expect(again.code, again.text).to.equal(0);
    expect(again.text).to.include('due from earlier runs: 1').and.include('deliveries enqueued: 1 (already queued: 0)');
    await expectExactlyOnce();
  });

  it('records a send that was in flight when Redis died, and sends it no second time', async () => {
    const d = await seedCompany('Company D');
    await seedProduct(d, 'D-LOW', 0);
    d.receiver.respond = () => ({ status: 200, body: '{"ok":true}', delayMs: 1500 });
    const queued = await checkRules();
    expect(queued.text).to.include('deliveries enqueued: 1');
    await d.receiver.waitForRequests(1, 15_000);
    await redis!.kill(); // mid-send: the job can no longer be completed in Redis, but the row is the truth
    await eventually(allDelivered, 'the attempt in flight to be recorded', 15_000);
    await redis!.start();
    const later = await checkRules();
    expect(later.code, later.text).to.equal(0);
    expect(later.text).to.include('due from earlier runs: 0').and.include('deliveries enqueued: 0');
    await expectExactlyOnce();
    expect(alive(notifier!), notifier!.output()).to.equal(true);
    await eventually(async () => (await fetch(`${notifier!.url}/readyz`)).status === 200, 'the notifier to be ready again', 15_000);
  });

  it('lets a producer that finds Redis down wait for it once: later calls fail at once, and it queues once Redis is back', async () => {
    // A producer made during the outage, as check_rules makes one per run.
    await redis!.kill();
    const producer = new DeliveryQueue(redis!.url, { name: 'deliveries-once', prefix: queue.DELIVERY_QUEUE_PREFIX, connectTimeoutMs: 2000 });
    const attempt = async () => {
      const started = Date.now();
      const error = await producer.enqueue([{ id: randomUUID(), attempts: 0 }]).then(
        () => undefined,
        (err: Error) => err,
      );
      return { error, ms: Date.now() - started };
    };
    try {
      const first = await attempt();
      expect(first.error).to.be.instanceOf(QueueUnavailableError);
      expect(first.error?.message).to.equal('Redis is not reachable (queue deliveries-once)');
      expect(first.ms, 'the first call waits for the connection').to.be.at.least(1900);
      const second = await attempt();
      expect(second.error?.message).to.equal('Redis is not reachable (queue deliveries-once)');
      expect(second.ms, 'the second call waits for nothing').to.be.below(1000);
      await redis!.start();
      await eventually(async () => (await attempt()).error === undefined, 'the producer to queue again', 15_000);
    } finally {
      await producer.close();
    }
  });

  it('lets a notifier stop cleanly on SIGTERM while Redis is down (it used to wait for Redis forever)', async () => {
    expect(alive(notifier!)).to.equal(true);
    await redis!.kill();
    await sleep(500);
    const stopped = await notifier!.stop('SIGTERM', 20_000);
    expect({ code: stopped.code, signal: stopped.signal }, notifier!.output()).to.deep.equal({ code: 0, signal: null });
    expect(notifier!.output()).to.include('delivery worker stopped');
  });
});

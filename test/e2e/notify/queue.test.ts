/**
 * The delivery queue on a real Redis (BullMQ), and the notifier as a real process: a job carries only an id,
 * duplicates send once, a lost queue is refilled from the outbox, and SIGTERM lets the delivery in flight
 * finish (a killed notifier: test/e2e/faults/notifier-killed.test.ts). Each test has its own queue name and
 * key prefix. Without Redis the Redis suites are skipped, loudly.
 */
import net from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { INTERNAL_AUTH_HEADER, signInternalToken } from '@pi/common';
import {
  AttemptOutcome,
  DeliveryQueue,
  DeliverySettings,
  DeliveryWorker,
  attemptDelivery,
  deliveryJobId,
  dispatchDeliveries,
  dueDeliveryIds,
  startDeliveryWorker,
} from '@pi/notify';
import { CLOSED_PORT } from '../../support/closed-port';
import { system, testDatabaseUrl } from '../../support/hooks';
import { scrape } from '../../support/metrics';
import { NotifierProcess, startNotifier } from '../../support/notifier';
import { Receiver, startReceiver } from '../../support/receiver';
import { eventually, sleep } from '../../support/wait';
import {
  REDIS_URL,
  Tenant,
  TestChannel,
  attemptsOf,
  buildTenant,
  createChannel,
  createDelivery,
  deliverySettings,
  dropChannels,
  reload,
  requireRedis,
  uniqueQueue,
} from './fixtures';

/** Sends `signal` (unless the notifier is gone already) and answers how it exited. */
async function stopNotifier(notifier: NotifierProcess | undefined, signal: NodeJS.Signals, timeoutMs = 20_000) {
  if (!notifier) return undefined;
  const { code, signal: by } = await notifier.stop(signal, timeoutMs);
  return { code, signal: by };
}

describe('notification delivery: the queue', () => {
  let tenant: Tenant;
  let receiver: Receiver;
  let settings: DeliverySettings;
  const channels: TestChannel[] = [];
  let queue: DeliveryQueue;
  let names: { name: string; prefix: string };
  const workers: DeliveryWorker[] = [];
  const notifiers: NotifierProcess[] = [];
  const sequelize = () => system().db.sequelize;

  const channel = async () => {
    const c = await createChannel(tenant, settings, { url: receiver.url });
    channels.push(c);
    return c;
  };
  /** An in-process worker on this test's queue; records what each job did. */
  const startWorker = (outcomes: AttemptOutcome[] = [], lockDurationMs?: number) => {
    const worker = startDeliveryWorker({
      redisUrl: REDIS_URL,
      ...names,
      concurrency: 2,
      lockDurationMs,
      handler: async (id) => {
        const outcome = await attemptDelivery(sequelize(), id, settings, new Date());
        outcomes.push(outcome);
        return outcome;
      },
    });
    workers.push(worker);
    return worker;
  };
  const notifierEnv = () => ({
    DATABASE_URL: testDatabaseUrl(),
    INTERNAL_JWT_SECRET: system().internalJwtSecret,
    SECRET_ENCRYPTION_KEY: settings.SECRET_ENCRYPTION_KEY,
    REDIS_URL,
    DELIVERY_QUEUE_NAME: names.name,
    DELIVERY_QUEUE_PREFIX: names.prefix,
    ALLOW_LOOPBACK_WEBHOOKS: 'true',
  });
  /** What check_rules does first: queue every due delivery (only this test's, so other suites' rows are left alone). */
  const requeueDue = async (mine: string[]) => {
    const due = (await dueDeliveryIds(sequelize(), new Date())).filter((id) => mine.includes(id));
    return dispatchDeliveries(sequelize(), due, settings, queue);
  };

  before(async function () {
    await requireRedis(this, 'notification delivery: the queue');
    this.timeout(30_000);
    tenant = await buildTenant();
    receiver = await startReceiver();
    settings = deliverySettings();
  });
  beforeEach(() => {
    names = uniqueQueue();
    queue = new DeliveryQueue(REDIS_URL, names);
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 200, body: '{"ok":true}' });
  });
  afterEach(async function () {
    this.timeout(30_000);
    for (const n of notifiers.splice(0)) await stopNotifier(n, 'SIGKILL').catch(() => {});
    for (const w of workers.splice(0)) await w.close(true).catch(() => {});
    if (queue) {
      await queue.queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
    }
    await dropChannels(channels);
  });
  after(() => receiver?.close());

  it('queues a job that carries the delivery id only, once per attempt, and sends once', async () => {
    const c = await channel();
    const { delivery } = await createDelivery(tenant, c);
    const ref = { id: delivery.id, attempts: 0 };
    await queue.enqueue([ref]);
    await queue.enqueue([ref, ref]);

    expect(await queue.queue.getJobCounts('wait', 'delayed', 'active')).to.deep.equal({ wait: 1, delayed: 0, active: 0 });
    const job = await queue.queue.getJob(deliveryJobId(ref));
    expect(job?.id).to.equal(`${delivery.id}_0`);
    expect(job?.data).to.deep.equal({ deliveryId: delivery.id });
    expect(JSON.stringify(job?.data)).to.not.include(c.secret);

    const outcomes: AttemptOutcome[] = [];
    startWorker(outcomes);
    await eventually(async () => (await reload(delivery)).status === 'DELIVERED', 'the delivery');
    await sleep(300);
    expect(outcomes).to.deep.equal(['delivered']);
    expect(receiver.requests).to.have.length(1);
    expect(await attemptsOf(delivery)).to.have.length(1);

    // A late duplicate of the finished attempt runs, but sends nothing.
    await queue.enqueue([ref]);
    await eventually(() => outcomes.length === 2, 'the late duplicate to run');
    expect(outcomes).to.deep.equal(['delivered', 'skipped']);
    expect(receiver.requests).to.have.length(1);
    expect(await queue.queue.getJobCounts('completed', 'failed')).to.deep.equal({ completed: 0, failed: 0 });
  });

  it('delivers once a delivery whose job the queue lost, when the next run queues the due deliveries again', async () => {
    const c = await channel();
    const { delivery } = await createDelivery(tenant, c);
    await queue.enqueue([{ id: delivery.id, attempts: 0 }]);
    await queue.queue.obliterate({ force: true }); // Redis lost everything before any worker ran
    expect(await queue.queue.getJob(`${delivery.id}_0`)).to.equal(undefined);

    expect(await requeueDue([delivery.id])).to.deep.include({ enqueued: 1 });
    const outcomes: AttemptOutcome[] = [];
    startWorker(outcomes);
    await eventually(async () => (await reload(delivery)).status === 'DELIVERED', 'the delivery');
    await sleep(300);
    expect(receiver.requests).to.have.length(1);
    expect(outcomes).to.deep.equal(['delivered']);

    // The run after that finds nothing due.
    expect(await requeueDue([delivery.id])).to.deep.include({ enqueued: 0 });
    expect(await dueDeliveryIds(sequelize(), new Date())).to.not.include(delivery.id);
  });

  it('runs the notifier: open probes, metrics behind METRICS_TOKEN, delivery of queued jobs, and a SIGTERM that lets the delivery in flight finish', async function () {
    this.timeout(60_000);
    const c = await channel();
    const metricsToken = randomBytes(24).toString('hex');
    const notifier = await startNotifier({ ...notifierEnv(), METRICS_TOKEN: metricsToken });
    notifiers.push(notifier);

    expect((await fetch(`${notifier.url}/healthz`)).status).to.equal(200);
    await eventually(async () => (await fetch(`${notifier.url}/readyz`)).status === 200, 'the notifier to be ready');
    expect(await (await fetch(`${notifier.url}/readyz`)).json()).to.deep.equal({ status: 'ready' });
    // The metrics answer their token only: not nothing, not another one, not the gateway's internal token.
    expect((await fetch(`${notifier.url}/metrics`)).status).to.equal(401);
    expect((await fetch(`${notifier.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}x` } })).status).to.equal(401);
    const token = signInternalToken(
      { companyId: tenant.company.id, principal: { kind: 'user', id: randomUUID() }, permissions: ['read'], role: 'admin' },
      randomUUID(),
      system().internalJwtSecret,
    );
    const refused = await fetch(`${notifier.url}/metrics`, { headers: { [INTERNAL_AUTH_HEADER]: token } });
    expect(refused.status).to.equal(401);
    expect(await refused.json()).to.deep.include({ code: 'authentication_failed' });
    const metrics = () => scrape(notifier.url, metricsToken);
    expect((await metrics()).find('notifier_deliveries_processed_total', { outcome: 'delivered', service: 'notifier' })).to.have.length(1);
    expect((await metrics()).value('notifier_deliveries_processed_total', { outcome: 'delivered' })).to.equal(0);

    const first = await createDelivery(tenant, c);
    await queue.enqueue([{ id: first.delivery.id, attempts: 0 }]);
    await eventually(async () => (await reload(first.delivery)).status === 'DELIVERED', 'the first delivery');
    await eventually(async () => (await metrics()).value('notifier_deliveries_processed_total', { outcome: 'delivered' }) === 1, 'the metric');
    expect((await metrics()).value('notifier_deliveries_in_flight')).to.equal(0);
    expect((await metrics()).value('notifier_delivery_duration_seconds_count', { outcome: 'delivered' })).to.equal(1);

    // A slow receiver: SIGTERM arrives while the POST is in flight.
    receiver.respond = () => ({ status: 200, body: '{"ok":true}', delayMs: 1500 });
    const second = await createDelivery(tenant, c);
    await queue.enqueue([{ id: second.delivery.id, attempts: 0 }]);
    await receiver.waitForRequests(2);
    const exit = await stopNotifier(notifier, 'SIGTERM');
    expect(exit, notifier.output()).to.deep.equal({ code: 0, signal: null });

    expect(await reload(second.delivery)).to.deep.include({ status: 'DELIVERED', attempts: 1 });
    expect(await attemptsOf(second.delivery)).to.have.length(1);
    expect(receiver.requests).to.have.length(2);
    const output = notifier.output();
    expect(output).to.include('delivery worker stopped');
    expect(output.includes(c.secret), 'the notifier logged a channel secret').to.equal(false);
    expect(output.includes(settings.SECRET_ENCRYPTION_KEY), 'the notifier logged the encryption key').to.equal(false);
  });

  it('runs the notifier without Redis reachable: alive but not ready, and it still stops cleanly', async function () {
    this.timeout(30_000);
    const notifier = await startNotifier({ ...notifierEnv(), REDIS_URL: `redis://127.0.0.1:${CLOSED_PORT}` });
    notifiers.push(notifier);
    expect((await fetch(`${notifier.url}/healthz`)).status).to.equal(200);
    const ready = await fetch(`${notifier.url}/readyz`);
    expect(ready.status).to.equal(503);
    expect(await ready.json()).to.deep.include({ status: 'unavailable' });
    expect(await stopNotifier(notifier, 'SIGTERM'), notifier.output()).to.deep.equal({ code: 0, signal: null });
  });
});

describe('notification delivery: the queue without Redis', () => {
  it('fail fast, naming the queue, instead of waiting for Redis', async () => {
    const queue = new DeliveryQueue(`redis://127.0.0.1:${CLOSED_PORT}`, { ...uniqueQueue(), connectTimeoutMs: 500 });
    const started = Date.now();
    try {
      let error: Error | undefined;
      await queue.enqueue([{ id: randomUUID(), attempts: 0 }]).catch((err: Error) => (error = err));
      expect(error?.message).to.match(/Redis is not reachable \(queue deliveries-test-/);
      expect(Date.now() - started).to.be.below(3000);
    } finally {
      await queue.close();
    }
  });

  it('closes workers and producers without crashing the process while Redis answers but is not usable', async function () {
    this.timeout(20_000);
    // Answers every command with an error, as a Redis that wants a password (NOAUTH) or is still loading does:
    // the clients connect, fail their ready check and wait, which is when a close used to crash the process.
    const fake = net.createServer((socket) => {
      socket.on('data', () => socket.write('-NOAUTH Authentication required.\r\n'));
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const url = `redis://127.0.0.1:${(fake.address() as { port: number }).port}`;
    const problems: unknown[] = [];
    const onProblem = (err: unknown) => problems.push(err);
    process.on('unhandledRejection', onProblem);
    process.on('uncaughtException', onProblem);
    try {
      for (let i = 0; i < 3; i++) {
        const worker = startDeliveryWorker({ redisUrl: url, ...uniqueQueue(), handler: () => Promise.resolve('skipped') });
        const queue = new DeliveryQueue(url, { ...uniqueQueue(), connectTimeoutMs: 100 });
        await queue.enqueue([{ id: randomUUID(), attempts: 0 }]).catch(() => {});
        await sleep(200);
        await worker.close();
        await queue.close();
      }
      await sleep(300);
      expect(problems.map(String)).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onProblem);
      process.off('uncaughtException', onProblem);
      fake.close();
    }
  });
});

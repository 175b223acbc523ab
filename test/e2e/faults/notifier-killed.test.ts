/**
 * Fault: a notifier killed (SIGKILL) in the middle of a send, as a real child process. The attempt is in the
 * log from the moment it started (STARTED, written before the POST); another notifier takes the stalled job
 * over, records the attempt as INTERRUPTED once its lease (send deadline + 5 s) ran out, and the delivery is
 * retried on the contract's schedule (2^1 × 60 s after the interrupted attempt started) and delivered, with
 * the same X-PI-Event-Id (at least once). Uses the shared Redis with a queue of its own.
 */
import { expect } from 'chai';
import { ATTEMPT_LEASE_MS, DEFAULT_JOB_LOCK_MS, DeliveryQueue, DeliverySettings, INTERRUPTED_ERROR, retryDelayMs } from '@pi/notify';
import { checkRules } from '@pi/monitor';
import { system, testDatabaseUrl } from '../../support/hooks';
import { NotifierProcess, alive, startNotifier } from '../../support/notifier';
import { Receiver, startReceiver } from '../../support/receiver';
import { eventually } from '../../support/wait';
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
} from '../notify/fixtures';

describe('faults: the notifier killed in the middle of a send', function () {
  this.timeout(90_000);
  let tenant: Tenant;
  let receiver: Receiver;
  let settings: DeliverySettings;
  let names: { name: string; prefix: string };
  let queue: DeliveryQueue;
  const channels: TestChannel[] = [];
  const notifiers: NotifierProcess[] = [];
  let releaseHung: () => void = () => {};

  const notifierEnv = () => ({
    DATABASE_URL: testDatabaseUrl(),
    INTERNAL_JWT_SECRET: system().internalJwtSecret,
    SECRET_ENCRYPTION_KEY: settings.SECRET_ENCRYPTION_KEY,
    REDIS_URL,
    DELIVERY_QUEUE_NAME: names.name,
    DELIVERY_QUEUE_PREFIX: names.prefix,
    ALLOW_LOOPBACK_WEBHOOKS: 'true',
  });

  before(async function () {
    await requireRedis(this, 'faults: the notifier killed in the middle of a send');
    tenant = await buildTenant();
    settings = deliverySettings();
    names = uniqueQueue();
    queue = new DeliveryQueue(REDIS_URL, names);
    receiver = await startReceiver();
    const hung = new Promise<void>((resolve) => (releaseHung = resolve));
    receiver.respond = async (_req, index) => {
      if (index === 0) await hung; // the first POST never gets its answer while its notifier lives
      return { status: 200, body: '{"ok":true}' };
    };
  });
  after(async function () {
    this.timeout(30_000);
    releaseHung();
    for (const n of notifiers.splice(0)) if (alive(n)) await n.stop('SIGKILL', 5000).catch(() => {});
    if (queue) {
      await queue.queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
    }
    await dropChannels(channels);
    await receiver?.close();
  });

  it('records the interrupted attempt (within about 15 s: job lock and lease), then delivers on the retry schedule', async () => {
    const channel = await createChannel(tenant, settings, { url: receiver.url });
    channels.push(channel);
    const { delivery, event } = await createDelivery(tenant, channel);

    const first = await startNotifier(notifierEnv(), 'notifier-1');
    notifiers.push(first);
    await queue.enqueue([{ id: delivery.id, attempts: 0 }]);
    await receiver.waitForRequests(1, 15_000);

    // In the log before the receiver answered: STARTED, counted, the delivery leased.
    const [started] = await attemptsOf(delivery);
    expect(started).to.deep.include({ number: 1, status: 'STARTED', finishedAt: null });
    expect(await reload(delivery)).to.deep.include({ status: 'PENDING', attempts: 1 });

    const killedAt = Date.now();
    expect(await first.stop('SIGKILL')).to.deep.include({ signal: 'SIGKILL' });
    const second = await startNotifier(notifierEnv(), 'notifier-2');
    notifiers.push(second);

    // The second notifier takes the stalled job over and, once the lease ran out, records the interruption.
    await eventually(async () => (await attemptsOf(delivery))[0]?.status === 'INTERRUPTED', 'the interrupted attempt to be recorded', 45_000, 200);
    const recoveredMs = Date.now() - killedAt;
    process.stdout.write(`      measured: interrupted attempt recorded ${(recoveredMs / 1000).toFixed(1)} s after the SIGKILL\n`);
    // Bound: the job lock (10 s) and a stalled-job check (5 s) to take the job over, the lease (15 s from the
    // attempt's start) to pass, a deferral step (≤ 3 s); generously, 30 s.
    expect(recoveredMs).to.be.below(DEFAULT_JOB_LOCK_MS * 1.5 + ATTEMPT_LEASE_MS + 5_000);
    const [interrupted] = await attemptsOf(delivery);
    expect(interrupted).to.deep.include({ number: 1, status: 'INTERRUPTED', ok: false, error: INTERRUPTED_ERROR });
    const row = await reload(delivery);
    expect(row).to.deep.include({ status: 'RETRYING', attempts: 1, lastError: INTERRUPTED_ERROR });
    expect(row.nextAttemptAt.getTime(), 'due 2^1 × 60 s after the interrupted attempt started').to.equal(interrupted.startedAt.getTime() + retryDelayMs(1));
    expect(receiver.requests).to.have.length(1);
    expect(alive(second), second.output()).to.equal(true);

    // The first check_rules run once it is due sends it (here without a queue, on the due time's clock).
    const summary = await checkRules(system().db.sequelize, testDatabaseUrl(), settings, { companyId: tenant.company.id, now: row.nextAttemptAt });
    expect(summary).to.include({ due_deliveries: 1, delivered: 1 });
    expect((await attemptsOf(delivery)).map((a) => [a.number, a.status])).to.deep.equal([
      [1, 'INTERRUPTED'],
      [2, 'SUCCEEDED'],
    ]);
    expect(await reload(delivery)).to.deep.include({ status: 'DELIVERED', attempts: 2 });
    expect(receiver.requests).to.have.length(2);
    expect(receiver.requests.map((r) => r.headers['x-pi-event-id'])).to.deep.equal([event.id, event.id]);
    expect(receiver.requests[1].body).to.equal(receiver.requests[0].body);
  });
});

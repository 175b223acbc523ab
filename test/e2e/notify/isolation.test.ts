/**
 * Delivery isolation against a real PostgreSQL and real HTTP receivers, on a controlled clock: the attempt is
 * written as STARTED before the send and closed after it with no lock or transaction held meanwhile; an attempt
 * whose sender stopped is recorded as INTERRUPTED and retried on the 2^n × 60 s schedule; one channel never has
 * more than its cap of sends in flight; and the circuit breaker pauses a failing channel, probes it, and closes
 * again. (The same paths with real processes: test/e2e/faults/.)
 */
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { NotificationChannel, NotificationDelivery } from '@pi/common';
import {
  ATTEMPT_LEASE_MS,
  AttemptOutcome,
  DeliverySettings,
  INTERRUPTED_ERROR,
  attemptDelivery,
  dispatchDeliveries,
  dueDeliveryIds,
  heldDeliveryCount,
} from '@pi/notify';
import { system } from '../../support/hooks';
import { Receiver, startReceiver } from '../../support/receiver';
import { eventually } from '../../support/wait';
import { Tenant, TestChannel, attemptsOf, buildTenant, createChannel, createDelivery, deliverySettings, dropChannels, reload } from './fixtures';

const MINUTE = 60_000;
const at = (t0: Date, ms: number) => new Date(t0.getTime() + ms);

/** A receiver whose answers wait until `release()` (or answer at once once released). */
async function gatedReceiver(): Promise<Receiver & { release(): void }> {
  const receiver = await startReceiver();
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  receiver.respond = async () => {
    await opened;
    return { status: 200, body: '{"ok":true}' };
  };
  return Object.assign(receiver, { release: () => open() });
}

describe('notification delivery: isolation (claim, send, record; cap; circuit breaker)', () => {
  let tenant: Tenant;
  let settings: DeliverySettings;
  const channels: TestChannel[] = [];
  const receivers: Receiver[] = [];
  const sequelize = () => system().db.sequelize;
  const attempt = (delivery: NotificationDelivery, now: Date, s: DeliverySettings = settings): Promise<AttemptOutcome> =>
    attemptDelivery(sequelize(), delivery.id, s, now);
  const channel = async (url: string, spec: Parameters<typeof createChannel>[2] = {}) => {
    const c = await createChannel(tenant, settings, { url, ...spec });
    channels.push(c);
    return c;
  };
  const receiver = async (status = 200) => {
    const r = await startReceiver(status);
    receivers.push(r);
    return r;
  };
  const gated = async () => {
    const r = await gatedReceiver();
    receivers.push(r);
    return r;
  };
  const channelRow = async (c: TestChannel) => (await NotificationChannel.findByPk(c.row.id))!;

  before(async () => {
    tenant = await buildTenant();
    settings = deliverySettings();
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) {
      (r as Partial<{ release(): void }>).release?.();
      await r.close();
    }
    await dropChannels(channels);
  });

  it('writes the attempt as STARTED before the send and closes it after, holding no row lock and no open transaction during the send', async () => {
    const hook = await gated();
    const c = await channel(hook.url);
    const t0 = new Date();
    const { delivery } = await createDelivery(tenant, c, t0);

    const sending = attempt(delivery, t0);
    await hook.waitForRequests(1);
    const [inFlight] = await attemptsOf(delivery);
    expect(inFlight).to.deep.include({ number: 1, status: 'STARTED', ok: false, finishedAt: null });
    expect(inFlight.startedAt.getTime()).to.equal(t0.getTime());
    const leased = await reload(delivery);
    expect(leased).to.deep.include({ status: 'PENDING', attempts: 1 });
    expect(leased.nextAttemptAt.getTime(), 'the lease').to.equal(t0.getTime() + ATTEMPT_LEASE_MS);
    // The delivery and channel rows are free (NOWAIT would fail at once), and no transaction waits on the receiver.
    await sequelize().transaction(async (t) => {
      await sequelize().query('SELECT 1 FROM notification_deliveries WHERE id = $1 FOR UPDATE NOWAIT', { bind: [delivery.id], transaction: t });
      await sequelize().query('SELECT 1 FROM notification_channels WHERE id = $1 FOR UPDATE NOWAIT', { bind: [c.row.id], transaction: t });
    });
    const [open] = await sequelize().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
      { type: QueryTypes.SELECT },
    );
    expect(open.n, 'transactions left open during the send').to.equal(0);

    hook.release();
    expect(await sending).to.equal('delivered');
    const [done] = await attemptsOf(delivery);
    expect(done).to.deep.include({ number: 1, status: 'SUCCEEDED', ok: true, statusCode: 200, responseExcerpt: '{"ok":true}' });
    expect(done.finishedAt!.getTime()).to.equal(t0.getTime() + done.durationMs);
    expect(await reload(delivery)).to.deep.include({ status: 'DELIVERED', attempts: 1 });
  });

  it('defers a second attempt while one is in flight; once the lease runs out records it INTERRUPTED and retries 2 minutes after it started', async () => {
    const hook = await gated();
    const c = await channel(hook.url);
    const t0 = new Date('2032-05-01T08:00:00Z');
    const { delivery } = await createDelivery(tenant, c, t0);

    const stranded = attempt(delivery, t0); // its sender "dies": it never finishes within the lease
    await hook.waitForRequests(1);
    expect(await attempt(delivery, at(t0, 1000))).to.equal('deferred');
    expect(await attempt(delivery, at(t0, ATTEMPT_LEASE_MS - 1))).to.equal('deferred');
    expect(hook.requests).to.have.length(1);

    // The lease ran out: the next claim records the interruption, and the retry is not due yet.
    expect(await attempt(delivery, at(t0, ATTEMPT_LEASE_MS))).to.equal('retrying');
    let row = await reload(delivery);
    expect(row).to.deep.include({ status: 'RETRYING', attempts: 1, lastStatusCode: null, lastError: INTERRUPTED_ERROR });
    expect(row.nextAttemptAt.getTime(), 'attempt 2 due 2^1 × 60 s after attempt 1 started').to.equal(t0.getTime() + 2 * MINUTE);
    const [interrupted] = await attemptsOf(delivery);
    expect(interrupted).to.deep.include({ number: 1, status: 'INTERRUPTED', ok: false, error: INTERRUPTED_ERROR });
    expect(interrupted.finishedAt!.getTime()).to.equal(t0.getTime() + ATTEMPT_LEASE_MS);
    // Not the receiver's fault: the breaker does not count it.
    expect((await channelRow(c)).consecutiveFailures).to.equal(0);

    // The stranded sender finally finishes: its late result changes nothing.
    hook.release();
    expect(await stranded).to.equal('skipped');
    expect((await attemptsOf(delivery)).map((a) => a.status)).to.deep.equal(['INTERRUPTED']);

    expect(await attempt(delivery, at(t0, 2 * MINUTE - 1))).to.equal('skipped');
    expect(await attempt(delivery, at(t0, 2 * MINUTE))).to.equal('delivered');
    row = await reload(delivery);
    expect(row).to.deep.include({ status: 'DELIVERED', attempts: 2, lastError: null });
    expect((await attemptsOf(delivery)).map((a) => [a.number, a.status])).to.deep.equal([
      [1, 'INTERRUPTED'],
      [2, 'SUCCEEDED'],
    ]);
    // At least once: both POSTs carried the same event id.
    expect(new Set(hook.requests.map((r) => r.headers['x-pi-event-id'])).size).to.equal(1);
  });

  it('fails the delivery when its last allowed attempt was interrupted', async () => {
    const hook = await gated();
    const c = await channel(hook.url, { maxAttempts: 1 });
    const t0 = new Date('2032-05-02T08:00:00Z');
    const { delivery } = await createDelivery(tenant, c, t0);
    const stranded = attempt(delivery, t0);
    await hook.waitForRequests(1);
    expect(await attempt(delivery, at(t0, ATTEMPT_LEASE_MS))).to.equal('failed');
    expect(await reload(delivery)).to.deep.include({ status: 'FAILED', attempts: 1, lastError: INTERRUPTED_ERROR });
    hook.release();
    expect(await stranded).to.equal('skipped');
    expect(await attempt(delivery, at(t0, 60 * MINUTE))).to.equal('skipped');
    expect(hook.requests).to.have.length(1);
  });

  it('never has more than the cap (2) of sends in flight to one channel, while another channel is not held up', async () => {
    const slow = await gated();
    const fast = await receiver();
    const slowChannel = await channel(slow.url);
    const fastChannel = await channel(fast.url);
    const t0 = new Date();
    const slowOnes: NotificationDelivery[] = [];
    for (let i = 0; i < 3; i++) slowOnes.push((await createDelivery(tenant, slowChannel, t0)).delivery);
    const fastOne = (await createDelivery(tenant, fastChannel, t0)).delivery;

    const first = [attempt(slowOnes[0], t0), attempt(slowOnes[1], t0)];
    await slow.waitForRequests(2);
    expect(await attempt(slowOnes[2], t0)).to.equal('deferred');
    expect(await reload(slowOnes[2])).to.deep.include({ status: 'PENDING', attempts: 0 });
    expect(await attemptsOf(slowOnes[2])).to.have.length(0);
    expect(await attempt(fastOne, t0)).to.equal('delivered');
    expect(slow.requests).to.have.length(2);

    slow.release();
    expect(await Promise.all(first)).to.deep.equal(['delivered', 'delivered']);
    expect(await attempt(slowOnes[2], t0)).to.equal('delivered');
  });

  it('keeps to the cap in standalone dispatch too: a slow channel gets two at a time, the others go meanwhile', async () => {
    const slow = await receiver();
    let inFlight = 0;
    let most = 0;
    slow.respond = async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 150));
      inFlight -= 1;
      return { status: 200 };
    };
    const fast = await receiver();
    const slowChannel = await channel(slow.url);
    const fastChannel = await channel(fast.url);
    const t0 = new Date();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createDelivery(tenant, slowChannel, t0)).delivery.id);
    for (let i = 0; i < 2; i++) ids.push((await createDelivery(tenant, fastChannel, t0)).delivery.id);

    const summary = await dispatchDeliveries(sequelize(), ids, settings, undefined, { now: t0, concurrency: 6 });
    expect(summary).to.deep.include({ delivered: 7, deferred: 0 });
    expect(most, 'sends in flight to the slow channel at once').to.equal(2);
    expect(fast.requests).to.have.length(2);
  });

  it('pauses a channel after 5 failed attempts in a row: its deliveries wait untouched, one probe a minute, and a successful probe resumes it', async () => {
    const hook = await receiver(500);
    const c = await channel(hook.url);
    const healthy = await receiver();
    const other = await channel(healthy.url);
    const t0 = new Date('2032-06-01T09:00:00Z');
    const t1 = at(t0, 1000);
    const failing: NotificationDelivery[] = [];
    for (let i = 0; i < 7; i++) failing.push((await createDelivery(tenant, c, at(t0, i))).delivery);

    for (let i = 0; i < 4; i++) expect(await attempt(failing[i], t1)).to.equal('retrying');
    expect(await channelRow(c)).to.deep.include({ consecutiveFailures: 4, pausedAt: null });
    expect(await attempt(failing[4], t1)).to.equal('retrying');
    const paused = await channelRow(c);
    expect(paused.consecutiveFailures).to.equal(5);
    expect(paused.pausedAt?.getTime()).to.equal(t1.getTime());
    expect(paused.nextProbeAt?.getTime()).to.equal(t1.getTime() + MINUTE);
    expect(paused.pausedReason).to.equal('5 failed attempts in a row; the last one: receiver answered HTTP 500');
    expect(hook.requests).to.have.length(5);

    // Held: nothing sent, no attempt spent, still due; another channel is not affected.
    expect(await attempt(failing[5], at(t1, 1000))).to.equal('held');
    expect(await reload(failing[5])).to.deep.include({ status: 'PENDING', attempts: 0 });
    expect(hook.requests).to.have.length(5);
    const otherDelivery = (await createDelivery(tenant, other, t1)).delivery;
    expect(await attempt(otherDelivery, at(t1, 1000))).to.equal('delivered');

    // check_rules re-queues none of them until the probe is due, then only the oldest due one.
    const mine = async (now: Date) => (await dueDeliveryIds(sequelize(), now, 1000, tenant.company.id)).filter((id) => failing.some((d) => d.id === id));
    expect(await mine(at(t1, 30_000))).to.deep.equal([]);
    expect(await heldDeliveryCount(sequelize(), at(t1, 30_000), tenant.company.id)).to.equal(2);
    expect(await mine(at(t1, MINUTE))).to.deep.equal([failing[5].id]);

    // A failed probe keeps it paused and sets the next probe a minute on.
    expect(await attempt(failing[5], at(t1, MINUTE))).to.equal('retrying');
    const stillPaused = await channelRow(c);
    expect(stillPaused.pausedAt?.getTime()).to.equal(t1.getTime());
    expect(stillPaused.nextProbeAt?.getTime()).to.equal(t1.getTime() + 2 * MINUTE);
    expect(stillPaused.pausedReason).to.equal('6 failed attempts in a row; the last one: receiver answered HTTP 500');
    expect(await attempt(failing[6], at(t1, 2 * MINUTE - 1))).to.equal('held');
    expect(hook.requests).to.have.length(6);

    // The receiver recovers: the next probe succeeds and the breaker closes; the rest go out again.
    hook.status = 200;
    expect(await attempt(failing[6], at(t1, 2 * MINUTE))).to.equal('delivered');
    expect(await channelRow(c)).to.deep.include({ consecutiveFailures: 0, pausedAt: null, pausedReason: null, nextProbeAt: null });
    expect(await attempt(failing[0], at(t1, 2 * MINUTE))).to.equal('delivered');
    expect(await heldDeliveryCount(sequelize(), at(t1, 2 * MINUTE), tenant.company.id)).to.equal(0);
    // Each failed attempt was a real attempt of its delivery, on the usual schedule.
    expect(await reload(failing[1])).to.deep.include({ status: 'RETRYING', attempts: 1 });
  });

  it('counts failures in a row only: a success in between starts the count again', async () => {
    const hook = await receiver();
    let answers = [500, 500, 500, 500, 200, 500, 500, 500, 500];
    hook.respond = () => ({ status: answers.shift() ?? 500 });
    const c = await channel(hook.url);
    const t0 = new Date();
    for (let i = 0; i < 9; i++) await attempt((await createDelivery(tenant, c, t0)).delivery, t0);
    expect(await channelRow(c)).to.deep.include({ consecutiveFailures: 4, pausedAt: null });
    answers = [500];
    await attempt((await createDelivery(tenant, c, t0)).delivery, t0);
    expect((await channelRow(c)).pausedAt).to.not.equal(null);
  });

  it('lets two workers that race on one delivery send it once', async () => {
    const hook = await receiver();
    hook.respond = () => ({ status: 200, delayMs: 200 });
    const c = await channel(hook.url);
    const now = new Date();
    const { delivery } = await createDelivery(tenant, c, now);
    const outcomes = await Promise.all([attempt(delivery, now), attempt(delivery, now), attempt(delivery, now)]);
    expect(outcomes.filter((o) => o === 'delivered')).to.have.length(1);
    expect(
      outcomes.every((o) => ['delivered', 'skipped', 'deferred'].includes(o)),
      outcomes.join(),
    ).to.equal(true);
    await eventually(async () => (await reload(delivery)).status === 'DELIVERED', 'the delivery');
    expect(hook.requests).to.have.length(1);
    expect(await attemptsOf(delivery)).to.have.length(1);
  });
});

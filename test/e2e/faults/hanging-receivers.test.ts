/**
 * Fault: five webhook receivers that accept the connection and never answer, with a healthy one queued behind
 * them, through a real notifier process with its default settings (20 jobs at once, 2 sends in flight per
 * channel). The bound stated in docs/api/monitoring-and-notifications.md: a healthy channel's deliveries do not wait for the slow ones, so
 * they are all delivered before the first hanging send reaches its 10 s deadline, whatever the order of the
 * queue; and no hanging channel ever has more than 2 sends in flight. Uses the shared Redis with a queue of
 * its own.
 */
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { NotificationDelivery } from '@pi/common';
import { DeliveryQueue, DeliverySettings, WEBHOOK_TIMEOUT_MS } from '@pi/notify';
import { system, testDatabaseUrl } from '../../support/hooks';
import { NotifierProcess, alive, startNotifier } from '../../support/notifier';
import { Receiver, startReceiver } from '../../support/receiver';
import { eventually, sleep } from '../../support/wait';
import {
  REDIS_URL,
  Tenant,
  TestChannel,
  buildTenant,
  createChannel,
  createDelivery,
  deliverySettings,
  dropChannels,
  requireRedis,
  uniqueQueue,
} from '../notify/fixtures';

const HANGING = 5;
const PER_HANGING_CHANNEL = 4;
const HEALTHY = 5;

describe('faults: hanging webhook receivers beside a healthy one', function () {
  this.timeout(60_000);
  let tenant: Tenant;
  let settings: DeliverySettings;
  let names: { name: string; prefix: string };
  let queue: DeliveryQueue;
  const receivers: Receiver[] = [];
  const channels: TestChannel[] = [];
  let notifier: NotifierProcess | undefined;
  let release: () => void = () => {};

  before(async function () {
    await requireRedis(this, 'faults: hanging webhook receivers');
    tenant = await buildTenant();
    settings = deliverySettings();
    names = uniqueQueue();
    queue = new DeliveryQueue(REDIS_URL, names);
  });
  after(async function () {
    this.timeout(30_000);
    release();
    if (notifier && alive(notifier)) await notifier.stop('SIGKILL', 5000).catch(() => {});
    if (queue) {
      await queue.queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
    }
    await dropChannels(channels);
    for (const r of receivers) await r.close();
  });

  const receiverWith = async (respond: Receiver['respond']) => {
    const r = await startReceiver();
    r.respond = respond;
    receivers.push(r);
    const c = await createChannel(tenant, settings, { url: r.url });
    channels.push(c);
    return { receiver: r, channel: c };
  };
  const statuses = async (ids: string[]) =>
    system().db.sequelize.query<{ status: string; n: number }>(
      `SELECT a.status, count(*)::int AS n FROM notification_attempts a WHERE a.delivery_id = ANY($1::uuid[]) GROUP BY a.status`,
      { bind: [ids], type: QueryTypes.SELECT },
    );

  it('delivers the healthy channel at once while five channels hang, each held to 2 sends in flight', async () => {
    const hung = new Promise<void>((resolve) => (release = resolve));
    const slow: Array<{ receiver: Receiver; deliveries: NotificationDelivery[] }> = [];
    for (let i = 0; i < HANGING; i++) {
      const { receiver, channel } = await receiverWith(async () => {
        await hung;
        return { status: 200 };
      });
      const deliveries: NotificationDelivery[] = [];
      for (let j = 0; j < PER_HANGING_CHANNEL; j++) deliveries.push((await createDelivery(tenant, channel)).delivery);
      slow.push({ receiver, deliveries });
    }
    const healthy = await receiverWith(() => ({ status: 200, body: '{"ok":true}' }));
    const fine: NotificationDelivery[] = [];
    for (let j = 0; j < HEALTHY; j++) fine.push((await createDelivery(tenant, healthy.channel)).delivery);
    const slowIds = slow.flatMap((s) => s.deliveries.map((d) => d.id));

    notifier = await startNotifier({
      DATABASE_URL: testDatabaseUrl(),
      INTERNAL_JWT_SECRET: system().internalJwtSecret,
      SECRET_ENCRYPTION_KEY: settings.SECRET_ENCRYPTION_KEY,
      REDIS_URL,
      DELIVERY_QUEUE_NAME: names.name,
      DELIVERY_QUEUE_PREFIX: names.prefix,
      ALLOW_LOOPBACK_WEBHOOKS: 'true',
    });
    // The slow ones first, the healthy ones last: the worst order for the healthy channel.
    await queue.enqueue(slowIds.map((id) => ({ id, attempts: 0 })));
    await eventually(() => slow.every((s) => s.receiver.requests.length >= 2), 'every hanging channel to have its sends in flight', 10_000);
    const queuedAt = Date.now();
    await queue.enqueue(fine.map((d) => ({ id: d.id, attempts: 0 })));

    const fineIds = fine.map((d) => d.id);
    await eventually(
      async () => (await NotificationDelivery.count({ where: { id: fineIds, status: 'DELIVERED' } })) === HEALTHY,
      'the healthy deliveries',
      WEBHOOK_TIMEOUT_MS,
    );
    const delayMs = Date.now() - queuedAt;
    process.stdout.write(`      measured: ${HEALTHY} healthy deliveries delivered ${delayMs} ms after they were queued, behind ${HANGING} hanging channels\n`);

    // Ordering, not timing: the healthy channel was done while every hanging send was still in flight.
    expect(await statuses(slowIds)).to.deep.equal([{ status: 'STARTED', n: HANGING * 2 }]);
    expect(healthy.receiver.requests).to.have.length(HEALTHY);
    await sleep(500);
    for (const s of slow) expect(s.receiver.requests, 'sends in flight to one hanging channel').to.have.length(2);
    expect(alive(notifier), notifier.output()).to.equal(true);
  });
});

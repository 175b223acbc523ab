/**
 * Webhook delivery against a real PostgreSQL and a real HTTP receiver: signature and body as documented (docs/api/monitoring-and-notifications.md), the
 * retry schedule on a controlled clock, duplicates, channels gone or paused, SSRF at send time, the outbox
 * rows, and standalone dispatch.
 */
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { NotificationDelivery, createLogger } from '@pi/common';
import {
  DeliverySettings,
  REFUSED_ADDRESS_MESSAGE,
  attemptDelivery,
  buildTestBody,
  createDeliveries,
  dispatchDeliveries,
  dueDeliveryIds,
  verifySignature,
} from '@pi/notify';
import { system } from '../../support/hooks';
import { Receiver, startReceiver } from '../../support/receiver';
import { LogCapture } from '../../support/system';
import { Tenant, TestChannel, attemptsOf, buildTenant, createChannel, createDelivery, createEvent, deliverySettings, dropChannels, reload } from './fixtures';

const MINUTE = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('notification delivery: webhooks', () => {
  let tenant: Tenant;
  let receiver: Receiver;
  let settings: DeliverySettings;
  const channels: TestChannel[] = [];
  let logs: LogCapture;
  const sequelize = () => system().db.sequelize;
  const attempt = (delivery: NotificationDelivery, now: Date, s: DeliverySettings = settings) =>
    attemptDelivery(sequelize(), delivery.id, s, now, { logger: createLogger('notify-test', 'debug', logs) });
  const channel = async (spec: Parameters<typeof createChannel>[2] = {}) => {
    const c = await createChannel(tenant, settings, { url: receiver.url, ...spec });
    channels.push(c);
    return c;
  };

  before(async () => {
    tenant = await buildTenant();
    receiver = await startReceiver();
    settings = deliverySettings();
  });
  beforeEach(() => {
    logs = new LogCapture();
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 200, body: '{"ok":true}' });
  });
  afterEach(() => dropChannels(channels));
  after(() => receiver?.close());

  it('POSTs the exact stored body, signed with the channel secret, with every documented field, and records one attempt', async () => {
    const c = await channel();
    const now = new Date();
    const { delivery, event, rule } = await createDelivery(tenant, c, now);
    // The receiver takes its time, so that the attempt's measured duration has something to measure.
    receiver.respond = (req) =>
      verifySignature(req.body, c.secret, req.headers['x-pi-signature'] as string) ? { status: 200, body: '{"ok":true}', delayMs: 150 } : { status: 401 };

    const sentAt = Date.now();
    expect(await attempt(delivery, now)).to.equal('delivered');
    const elapsedMs = Date.now() - sentAt;

    expect(receiver.requests).to.have.length(1);
    const req = receiver.requests[0];
    expect(req.method).to.equal('POST');
    expect(req.path).to.equal('/hooks/inventory');
    expect(req.headers['content-type']).to.equal('application/json');
    expect(req.headers['x-pi-signature']).to.match(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(req.body, c.secret, req.headers['x-pi-signature'] as string)).to.equal(true);
    expect(req.headers['x-pi-event-id']).to.equal(event.id);
    expect(req.body).to.equal(delivery.payload);

    const body = JSON.parse(req.body);
    expect(Object.keys(body)).to.deep.equal(['event_id', 'type', 'company_id', 'product', 'payload', 'created_at']);
    expect(body.event_id).to.equal(event.id).and.match(UUID);
    expect(body.type).to.equal('THRESHOLD');
    expect(body.company_id).to.equal(tenant.company.id);
    expect(body.product).to.deep.equal({ id: tenant.product.id, sku: tenant.product.sku, name: tenant.product.name });
    expect(body.payload).to.deep.equal({ message: event.message, severity: 'CRITICAL', rule_id: rule.id, batch_id: null, status: 'OPEN' });
    expect(body.created_at).to.equal(now.toISOString());
    expect(body.created_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const row = await reload(delivery);
    expect(row).to.deep.include({ status: 'DELIVERED', attempts: 1, lastStatusCode: 200, lastError: null });
    expect(row.deliveredAt?.getTime()).to.equal(now.getTime());
    const attempts = await attemptsOf(delivery);
    expect(attempts).to.have.length(1);
    expect(attempts[0]).to.deep.include({ number: 1, ok: true, statusCode: 200, error: null, responseExcerpt: '{"ok":true}' });
    expect(attempts[0].startedAt.getTime()).to.equal(now.getTime());
    expect(attempts[0].durationMs).to.be.at.least(150).and.at.most(elapsedMs);
  });

  it('never stores or logs the channel secret, even when the receiver echoes it back', async () => {
    const c = await channel();
    const { delivery } = await createDelivery(tenant, c);
    receiver.respond = (req) => ({ status: 200, body: JSON.stringify({ received: req.headers, secret_was: c.secret }) });

    expect(await attempt(delivery, new Date())).to.equal('delivered');

    const [attemptRow] = await attemptsOf(delivery);
    expect(attemptRow.responseExcerpt).to.include('[redacted]');
    const stored = await sequelize().query<{ row: string }>(
      `SELECT row_to_json(d)::text AS row FROM notification_deliveries d WHERE id = $1
       UNION ALL SELECT row_to_json(a)::text FROM notification_attempts a WHERE delivery_id = $1`,
      { bind: [delivery.id], type: QueryTypes.SELECT },
    );
    expect(stored).to.have.length(2);
    for (const { row } of stored) expect(row.includes(c.secret), 'a stored row holds the secret').to.equal(false);
    expect(logs.text()).to.include(delivery.id); // the attempt was logged at all
    expect(logs.text().includes(c.secret), 'the delivery log holds the secret').to.equal(false);
    expect(system().logs.text().includes(c.secret), 'a service log holds the secret').to.equal(false);
  });

  it('retries a receiver answering 500 at +2, +4, +8 and +16 minutes, 5 attempts in all, then FAILED and silent', async () => {
    const c = await channel();
    const t0 = new Date();
    const { delivery } = await createDelivery(tenant, c, t0);
    receiver.respond = () => ({ status: 500, body: 'boom' });

    expect(await attempt(delivery, t0)).to.equal('retrying');
    let due = t0.getTime();
    const expectedTimes = [t0.getTime()];
    for (let n = 1; n <= 4; n++) {
      const row = await reload(delivery);
      due += 2 ** n * MINUTE;
      expect(row.status).to.equal('RETRYING');
      expect(row.attempts).to.equal(n);
      expect(row.nextAttemptAt.getTime(), `attempt ${n + 1} due ${2 ** n} minutes after attempt ${n}`).to.equal(due);

      // Before the due time nothing is sent, whoever asks.
      expect(await attempt(delivery, new Date(due - 1000))).to.equal('skipped');
      expect(receiver.requests).to.have.length(n);

      expect(await attempt(delivery, new Date(due))).to.equal(n < 4 ? 'retrying' : 'failed');
      expectedTimes.push(due);
      expect(receiver.requests).to.have.length(n + 1);
    }

    const row = await reload(delivery);
    expect(row).to.deep.include({ status: 'FAILED', attempts: 5, lastStatusCode: 500, deliveredAt: null });
    expect(row.lastError).to.equal('receiver answered HTTP 500');
    const attempts = await attemptsOf(delivery);
    expect(attempts.map((a) => a.number)).to.deep.equal([1, 2, 3, 4, 5]);
    expect(attempts.map((a) => a.startedAt.getTime())).to.deep.equal(expectedTimes);
    expect(attempts.every((a) => !a.ok && a.statusCode === 500 && a.responseExcerpt === 'boom')).to.equal(true);
    // Every attempt sent the same bytes with the same signature.
    expect(new Set(receiver.requests.map((r) => r.body)).size).to.equal(1);
    expect(new Set(receiver.requests.map((r) => r.headers['x-pi-signature'])).size).to.equal(1);

    expect(await attempt(delivery, new Date(t0.getTime() + 24 * 60 * MINUTE))).to.equal('skipped');
    expect(receiver.requests).to.have.length(5);
    expect(await attemptsOf(delivery)).to.have.length(5);
  });

  it('delivers on the next attempt once a failing receiver recovers', async () => {
    const c = await channel();
    const t0 = new Date();
    const { delivery } = await createDelivery(tenant, c, t0);
    receiver.respond = (_req, index) => (index === 0 ? { status: 503, body: 'down for maintenance' } : { status: 204 });

    expect(await attempt(delivery, t0)).to.equal('retrying');
    const t1 = new Date(t0.getTime() + 2 * MINUTE);
    expect(await attempt(delivery, t1)).to.equal('delivered');

    const row = await reload(delivery);
    expect(row).to.deep.include({ status: 'DELIVERED', attempts: 2, lastStatusCode: 204, lastError: null });
    expect(row.deliveredAt?.getTime()).to.equal(t1.getTime());
    const attempts = await attemptsOf(delivery);
    expect(attempts.map((a) => [a.number, a.ok, a.statusCode])).to.deep.equal([
      [1, false, 503],
      [2, true, 204],
    ]);
    expect(attempts[0].error).to.equal('receiver answered HTTP 503');
    expect(receiver.requests).to.have.length(2);
  });

  it("stops after the channel's own max_attempts", async () => {
    const c = await channel({ maxAttempts: 2 });
    const t0 = new Date();
    const { delivery } = await createDelivery(tenant, c, t0);
    expect(delivery.maxAttempts).to.equal(2);
    receiver.respond = () => ({ status: 404 });

    expect(await attempt(delivery, t0)).to.equal('retrying');
    expect(await attempt(delivery, new Date(t0.getTime() + 2 * MINUTE))).to.equal('failed');
    expect(await reload(delivery)).to.deep.include({ status: 'FAILED', attempts: 2 });
    expect(receiver.requests).to.have.length(2);
  });

  it('sends once when two workers attempt the same delivery at the same time, and never again once DELIVERED', async () => {
    const c = await channel();
    const now = new Date();
    const { delivery } = await createDelivery(tenant, c, now);
    receiver.respond = () => ({ status: 200, body: '{"ok":true}', delayMs: 300 });

    const outcomes = await Promise.all([attempt(delivery, now), attempt(delivery, now)]);
    // The other one met the claim's row lock ('skipped') or the attempt in flight ('deferred': it may look again).
    expect(outcomes.sort()).to.deep.oneOf([
      ['delivered', 'skipped'],
      ['deferred', 'delivered'],
    ]);
    expect(receiver.requests).to.have.length(1);
    expect(await attemptsOf(delivery)).to.have.length(1);

    expect(await attempt(delivery, new Date(now.getTime() + MINUTE))).to.equal('skipped');
    expect(receiver.requests).to.have.length(1);
    expect(await reload(delivery)).to.deep.include({ status: 'DELIVERED', attempts: 1 });
  });

  it('skips at once, sending nothing, while another transaction holds the delivery (SKIP LOCKED, no waiting)', async () => {
    const c = await channel();
    const now = new Date();
    const { delivery } = await createDelivery(tenant, c, now);
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = sequelize().transaction(async (t) => {
      await sequelize().query('SELECT id FROM notification_deliveries WHERE id = $1 FOR UPDATE', { bind: [delivery.id], transaction: t });
      locked();
      await released;
    });
    try {
      await isLocked;
      const started = Date.now();
      expect(await attempt(delivery, now)).to.equal('skipped');
      expect(Date.now() - started).to.be.below(2000);
      expect(receiver.requests).to.have.length(0);
    } finally {
      release();
      await holder;
    }
    expect(await attempt(delivery, now)).to.equal('delivered');
    expect(receiver.requests).to.have.length(1);
  });

  it('ends the delivery without sending when its channel was deactivated, and skips quietly when it was deleted', async () => {
    const paused = await channel();
    const { delivery } = await createDelivery(tenant, paused);
    await paused.row.update({ isActive: false });
    expect(await attempt(delivery, new Date())).to.equal('failed');
    expect(await reload(delivery)).to.deep.include({ status: 'FAILED', attempts: 0, lastError: 'channel inactive' });
    expect(await attemptsOf(delivery)).to.have.length(0);

    const deleted = await channel();
    const second = await createDelivery(tenant, deleted);
    await deleted.row.destroy();
    expect(await attempt(second.delivery, new Date())).to.equal('skipped');
    expect(await NotificationDelivery.findByPk(second.delivery.id)).to.equal(null);
    expect(receiver.requests).to.have.length(0);
  });

  it('skips an id that is not a delivery', async () => {
    expect(await attemptDelivery(sequelize(), '00000000-0000-4000-8000-000000000000', settings)).to.equal('skipped');
    expect(await attemptDelivery(sequelize(), 'not-a-uuid', settings)).to.equal('skipped');
  });

  describe('SSRF at send time', () => {
    it('refuses a channel URL that points to a private address: nothing is sent, the attempt fails clearly, the delivery retries', async () => {
      // Saved directly: as if the address had been accepted when saved and the name re-pointed since.
      const c = await channel({ url: 'http://10.0.0.1/hook' });
      const t0 = new Date();
      const { delivery } = await createDelivery(tenant, c, t0);

      expect(await attempt(delivery, t0)).to.equal('retrying');
      const [a] = await attemptsOf(delivery);
      expect(a).to.deep.include({ number: 1, ok: false, statusCode: null, error: REFUSED_ADDRESS_MESSAGE });
      const row = await reload(delivery);
      expect(row).to.deep.include({ status: 'RETRYING', attempts: 1, lastError: REFUSED_ADDRESS_MESSAGE, lastStatusCode: null });
      expect(row.nextAttemptAt.getTime()).to.equal(t0.getTime() + 2 * MINUTE);
    });

    it('refuses loopback unless ALLOW_LOOPBACK_WEBHOOKS is set, and fails the delivery after its last attempt', async () => {
      const c = await channel({ maxAttempts: 1 });
      const { delivery } = await createDelivery(tenant, c);

      expect(await attempt(delivery, new Date(), { ...settings, ALLOW_LOOPBACK_WEBHOOKS: false })).to.equal('failed');
      expect(receiver.requests).to.have.length(0);
      const row = await reload(delivery);
      expect(row).to.deep.include({ status: 'FAILED', attempts: 1, lastError: REFUSED_ADDRESS_MESSAGE });
    });
  });

  describe('the outbox', () => {
    it('creates one PENDING delivery per active channel subscribed to the event type, once per event', async () => {
      const subscribed = await channel({ events: ['THRESHOLD'], maxAttempts: 3 });
      const otherType = await channel({ events: ['DATE_OFFSET'] });
      const paused = await channel({ isActive: false });
      const now = new Date();
      const { event, body } = await createEvent(tenant, now);
      const input = {
        companyId: tenant.company.id,
        eventId: event.id,
        eventType: 'THRESHOLD' as const,
        body,
        channels: [subscribed.row, otherType.row, paused.row],
        now,
      };

      const first = await sequelize().transaction((t) => createDeliveries(sequelize(), t, input));
      expect(first).to.have.length(1);
      expect(first[0]).to.be.instanceOf(NotificationDelivery);
      expect(first[0]).to.deep.include({
        companyId: tenant.company.id,
        channelId: subscribed.row.id,
        eventId: event.id,
        eventType: 'THRESHOLD',
        payload: body,
        status: 'PENDING',
        attempts: 0,
        maxAttempts: 3,
      });
      expect(first[0].nextAttemptAt.getTime()).to.equal(now.getTime());

      const again = await sequelize().transaction((t) => createDeliveries(sequelize(), t, input));
      expect(again).to.deep.equal([]);
      // A channel listed twice still gets one delivery.
      const { event: other, body: otherBody } = await createEvent(tenant, now);
      const twice = await sequelize().transaction((t) =>
        createDeliveries(sequelize(), t, { ...input, eventId: other.id, body: otherBody, channels: [subscribed.row, subscribed.row] }),
      );
      expect(twice).to.have.length(1);
      expect(await NotificationDelivery.count({ where: { eventId: event.id } })).to.equal(1);

      expect(await dueDeliveryIds(sequelize(), new Date(now.getTime() - 1000))).to.not.include(first[0].id);
      expect(await dueDeliveryIds(sequelize(), now)).to.include(first[0].id);
    });

    it('creates nothing when the transaction that opened the event rolls back', async () => {
      const c = await channel();
      const { event, body } = await createEvent(tenant);
      const input = { companyId: tenant.company.id, eventId: event.id, eventType: 'THRESHOLD' as const, body, channels: [c.row] };
      await sequelize()
        .transaction(async (t) => {
          expect(await createDeliveries(sequelize(), t, input)).to.have.length(1);
          throw new Error('rollback');
        })
        .catch(() => {});
      expect(await NotificationDelivery.count({ where: { eventId: event.id } })).to.equal(0);
    });

    it('delivers a TEST notification (no event row) with the documented body', async () => {
      const c = await channel({ events: ['TEST'] });
      const now = new Date();
      const body = buildTestBody(tenant.company.id, now);
      const [delivery] = await sequelize().transaction((t) =>
        createDeliveries(sequelize(), t, { companyId: tenant.company.id, eventId: null, eventType: 'TEST', body, channels: [c.row], now }),
      );
      expect(delivery.eventId).to.equal(null);

      expect(await attempt(delivery, now)).to.equal('delivered');
      const received = JSON.parse(receiver.requests[0].body);
      expect(received).to.deep.include({ type: 'TEST', company_id: tenant.company.id, created_at: now.toISOString() });
      expect(received.product).to.deep.equal({ id: null, sku: null, name: 'Test notification' });
      expect(receiver.requests[0].headers['x-pi-event-id']).to.equal(received.event_id);
      expect(verifySignature(receiver.requests[0].body, c.secret, receiver.requests[0].headers['x-pi-signature'] as string)).to.equal(true);
    });
  });

  describe('standalone dispatch (no queue)', () => {
    it('attempts every delivery at once and summarises the outcomes', async () => {
      const ok = await channel({ url: `${receiver.url}/ok` });
      const failing = await channel({ url: `${receiver.url}/fail` });
      receiver.respond = (req) => (req.path.endsWith('/fail') ? { status: 500 } : { status: 200 });
      const now = new Date();
      const a = await createDelivery(tenant, ok, now);
      const b = await createDelivery(tenant, failing, now);
      const done = await createDelivery(tenant, ok, now);
      expect(await attempt(done.delivery, now)).to.equal('delivered');
      receiver.requests.length = 0;

      const summary = await dispatchDeliveries(sequelize(), [a.delivery.id, b.delivery.id, done.delivery.id], settings, undefined, { now });
      expect(summary).to.deep.equal({ enqueued: 0, alreadyQueued: 0, delivered: 1, retrying: 1, failed: 0, skipped: 1, deferred: 0, held: 0 });
      expect(receiver.requests).to.have.length(2);
      expect((await reload(a.delivery)).status).to.equal('DELIVERED');
      expect((await reload(b.delivery)).status).to.equal('RETRYING');
    });
  });
});

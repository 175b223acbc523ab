/**
 * `POST /api/v1/notification-deliveries/{id}/retry/` (docs/api/monitoring-and-notifications.md "Retrying a
 * failed delivery"): a FAILED delivery is sent again at once to a real receiver on 127.0.0.1 that failed
 * before and now answers 200; with a queue, through BullMQ and a worker. Admins only, company-isolated,
 * audited; anything but FAILED answers 409 and changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DeliveryWorker, attemptDelivery, startDeliveryWorker } from '@pi/notify';
import { get, post } from '../../support/api';
import { expectAccessDenied, expectErrorShape, expectNotFound, expectPermissionDenied, expectValidationError } from '../../support/assertions';
import { TestCompany, buildCompany, buildUser } from '../../support/builders';
import { system } from '../../support/hooks';
import { REDIS_URL, requireRedis } from '../../support/redis';
import { Receiver, startReceiver } from '../../support/receiver';
import { query, row } from '../../support/sql';
import { eventually } from '../../support/wait';
import { deliverySettings } from '../notify/fixtures';
import { buildChannel, startQueuedMonitor } from './helpers';

const stateOf = (id: string) => row<{ status: string; attempts: number }>('SELECT status, attempts FROM notification_deliveries WHERE id = $1', [id]);
const auditOf = (company: TestCompany, id: string) =>
  query<{ action: string; resource_type: string; actor_id: string; changes: Record<string, { before: unknown; after: unknown }> }>(
    'SELECT action, resource_type, actor_id, changes FROM audit_log WHERE company_id = $1 AND resource_id = $2',
    [company.id, id],
  );

describe('POST /api/v1/notification-deliveries/{id}/retry/', () => {
  let company: TestCompany;
  let receiver: Receiver;
  before(async () => {
    company = await buildCompany();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });

  /** A delivery that failed for good: one attempt allowed, and the receiver answered 500 to it. */
  async function failedDelivery(owner = company, url = receiver.url) {
    const channel = await buildChannel(owner, { url, max_attempts: 1 });
    receiver.status = 500;
    const sent = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: owner.token });
    receiver.status = 200;
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    expect(sent.body.delivery).to.deep.include({ status: 'FAILED', attempt_count: 1, last_status_code: 500 });
    return { channel, delivery: sent.body.delivery as { id: string } };
  }

  it('sends a failed delivery again now (200 without a queue): the receiver that failed gets it and answers 200, DELIVERED', async () => {
    const { delivery } = await failedDelivery();
    const before = receiver.requests.length;
    const res = await post(`/api/v1/notification-deliveries/${delivery.id}/retry/`, undefined, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(receiver.requests.length).to.equal(before + 1);
    expect(res.body).to.deep.include({
      id: delivery.id,
      status: 'DELIVERED',
      attempt_count: 2,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
    });
    expect(res.body.attempts.map((a: { number: number; status: string; status_code: number }) => [a.number, a.status, a.status_code])).to.deep.equal([
      [1, 'FAILED', 500],
      [2, 'SUCCEEDED', 200],
    ]);
    expect(await stateOf(delivery.id)).to.deep.equal({ status: 'DELIVERED', attempts: 2 });
    expect((await get(`/api/v1/notification-deliveries/${delivery.id}/`, { token: company.token })).body).to.deep.equal(res.body);
  });

  it('writes an audit entry `retry` of the delivery (status FAILED → RETRYING), with no body or secret in it', async () => {
    const { channel, delivery } = await failedDelivery();
    await post(`/api/v1/notification-deliveries/${delivery.id}/retry/`, {}, { token: company.token });
    const entries = await auditOf(company, delivery.id);
    expect(entries).to.have.length(1);
    expect(entries[0]).to.deep.include({ action: 'retry', resource_type: 'notification_delivery', actor_id: company.admin.id });
    expect(entries[0].changes.status).to.deep.equal({ before: 'FAILED', after: 'RETRYING' });
    expect(Object.keys(entries[0].changes)).to.not.include.members(['body', 'payload']);
    expect(JSON.stringify(entries[0].changes)).to.not.include(channel.secret);
    const listed = await get(`/api/v1/audit-log/?resource_id=${delivery.id}`, { token: company.token });
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    expect(listed.body.results.map((e: { action: string; resource_type: string }) => [e.action, e.resource_type])).to.deep.equal([
      ['retry', 'notification_delivery'],
    ]);
  });

  it('a retry that fails again leaves the delivery FAILED, one more attempt recorded', async () => {
    const { delivery } = await failedDelivery();
    receiver.status = 503;
    try {
      const res = await post(`/api/v1/notification-deliveries/${delivery.id}/retry/`, undefined, { token: company.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.include({ status: 'FAILED', attempt_count: 2, last_status_code: 503 });
    } finally {
      receiver.status = 200;
    }
  });

  it('answers 409 delivery_not_failed for a delivery that is not FAILED, sending and recording nothing', async () => {
    const channel = await buildChannel(company, { url: receiver.url });
    const sent = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
    expect(sent.body.delivery.status).to.equal('DELIVERED');
    const before = receiver.requests.length;
    const res = await post(`/api/v1/notification-deliveries/${sent.body.delivery.id}/retry/`, undefined, { token: company.token });
    expectErrorShape(res, 409, 'delivery_not_failed');
    expect(res.body.details).to.deep.equal({ status: 'DELIVERED' });
    expect(receiver.requests.length).to.equal(before);
    expect(await stateOf(sent.body.delivery.id)).to.deep.equal({ status: 'DELIVERED', attempts: 1 });
    expect(await auditOf(company, sent.body.delivery.id)).to.have.length(0);
  });

  it('answers 409 channel_inactive when the channel is inactive, changing nothing', async () => {
    const { channel, delivery } = await failedDelivery();
    await query('UPDATE notification_channels SET is_active = false WHERE id = $1', [channel.id]);
    expectErrorShape(await post(`/api/v1/notification-deliveries/${delivery.id}/retry/`, undefined, { token: company.token }), 409, 'channel_inactive');
    expect(await stateOf(delivery.id)).to.deep.equal({ status: 'FAILED', attempts: 1 });
  });

  it('refuses a body with fields and a malformed id (400 naming them), and answers 404 for an unknown delivery', async () => {
    const { delivery } = await failedDelivery();
    expectValidationError(await post(`/api/v1/notification-deliveries/${delivery.id}/retry/`, { now: true }, { token: company.token }), 'now');
    expectValidationError(await post('/api/v1/notification-deliveries/not-an-id/retry/', undefined, { token: company.token }), 'id');
    expectNotFound(await post(`/api/v1/notification-deliveries/${randomUUID()}/retry/`, undefined, { token: company.token }));
    expect(await stateOf(delivery.id)).to.deep.equal({ status: 'FAILED', attempts: 1 });
  });

  it('refuses a viewer and a member (403 permission_denied) and another company’s admin (403 access_denied): nothing sent, nothing audited', async () => {
    const { channel, delivery } = await failedDelivery();
    const before = receiver.requests.length;
    const viewer = await buildUser(company, { role: 'viewer' });
    expectPermissionDenied(await post(`/api/v1/notification-deliveries/${delivery.id}/retry/`, undefined, { token: viewer.token }), [channel.secret]);
    const member = await buildUser(company, { role: 'member' });
    expectPermissionDenied(await post(`/api/v1/notification-deliveries/${delivery.id}/retry/`, undefined, { token: member.token }), [channel.secret]);
    const other = await buildCompany();
    expectAccessDenied(await post(`/api/v1/notification-deliveries/${delivery.id}/retry/`, undefined, { token: other.token }), [channel.secret, company.id]);
    expect(receiver.requests.length).to.equal(before);
    expect(await stateOf(delivery.id)).to.deep.equal({ status: 'FAILED', attempts: 1 });
    expect(await auditOf(company, delivery.id)).to.have.length(0);
    const otherLog = await get('/api/v1/audit-log/?page_size=500', { token: other.token });
    expect(otherLog.body.results.filter((e: { resource_id: string }) => e.resource_id === delivery.id)).to.have.length(0);
  });

  it('with a queue, answers 202 and queues the attempt at once; a BullMQ worker sends it and the delivery is DELIVERED', async function () {
    await requireRedis(this, 'retry with a delivery queue');
    const monitor = await startQueuedMonitor('retry-test', { ALLOW_LOOPBACK_WEBHOOKS: 'true' });
    const s = system();
    let worker: DeliveryWorker | undefined;
    try {
      const { delivery } = await failedDelivery();
      const before = receiver.requests.length;
      const res = await post(`/api/v1/notification-deliveries/${delivery.id}/retry/`, undefined, { token: company.token, baseUrl: monitor.gatewayUrl });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      expect(res.body).to.deep.include({ id: delivery.id, status: 'RETRYING', attempt_count: 1 });
      const jobs = await monitor.queue.queue.getJobs(['waiting', 'delayed', 'prioritized']);
      expect(jobs.map((j) => j.data)).to.deep.equal([{ deliveryId: delivery.id }]);

      const settings = deliverySettings({ SECRET_ENCRYPTION_KEY: s.secretEncryptionKey });
      worker = startDeliveryWorker({
        redisUrl: REDIS_URL,
        name: monitor.queueName,
        handler: (id) => attemptDelivery(s.db.sequelize, id, settings, new Date()),
      });
      await eventually(async () => (await stateOf(delivery.id)).status === 'DELIVERED', 'the retried delivery delivered', 15_000);
      expect(await stateOf(delivery.id)).to.deep.equal({ status: 'DELIVERED', attempts: 2 });
      expect(receiver.requests.length).to.equal(before + 1);
    } finally {
      await worker?.close();
      await monitor.close();
    }
  });
});

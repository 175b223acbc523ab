/**
 * A channel's circuit breaker as admins see it (`state`, `paused_at`, `paused_reason`, `next_probe_at`,
 * `consecutive_failures`) and `POST /api/v1/notification-channels/{id}/resume/`: admins only, company-isolated,
 * and with a queue the waiting deliveries are queued at once.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post } from '../../support/api';
import { expectAccessDenied, expectErrorShape, expectNotFound, expectPermissionDenied, expectValidationError } from '../../support/assertions';
import { TestCompany, buildCompany, buildUser } from '../../support/builders';
import { requireRedis } from '../../support/redis';
import { query, row } from '../../support/sql';
import { buildChannel, buildDelivery, startQueuedMonitor } from './helpers';

const PAUSED_AT = '2031-02-03T04:05:06.000Z';
const NEXT_PROBE_AT = '2031-02-03T04:06:06.000Z';
const REASON = '5 failed attempts in a row; the last one: receiver answered HTTP 503';

/** What the circuit breaker writes when it opens (libs/notify breaker.ts). */
async function pause(channelId: string) {
  await query(`UPDATE notification_channels SET consecutive_failures = 5, paused_at = $2, paused_reason = $3, next_probe_at = $4 WHERE id = $1`, [
    channelId,
    PAUSED_AT,
    REASON,
    NEXT_PROBE_AT,
  ]);
}
const breakerOf = (id: string) =>
  row<{ consecutive_failures: number; paused_at: Date | null; paused_reason: string | null; next_probe_at: Date | null }>(
    'SELECT consecutive_failures, paused_at, paused_reason, next_probe_at FROM notification_channels WHERE id = $1',
    [id],
  );

describe('notification channels: the circuit breaker and POST {id}/resume/', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
  });

  it('shows a paused channel as paused since when and why, with its next probe, on retrieve and list', async () => {
    const channel = await buildChannel(company);
    await pause(channel.id);
    const one = await get(`/api/v1/notification-channels/${channel.id}/`, { token: company.token });
    expect(one.status).to.equal(200);
    expect(one.body).to.deep.include({
      is_active: true,
      state: 'paused',
      paused_at: PAUSED_AT,
      paused_reason: REASON,
      next_probe_at: NEXT_PROBE_AT,
      consecutive_failures: 5,
    });
    const list = await get('/api/v1/notification-channels/?page_size=500', { token: company.token });
    expect(list.body.results.find((c: { id: string }) => c.id === channel.id)).to.deep.include({ state: 'paused', paused_at: PAUSED_AT });

    await query('UPDATE notification_channels SET is_active = false WHERE id = $1', [channel.id]);
    expect((await get(`/api/v1/notification-channels/${channel.id}/`, { token: company.token })).body).to.deep.include({
      state: 'inactive',
      paused_at: PAUSED_AT,
    });
  });

  it('resumes a paused channel (200): active again, the failure count reset; its waiting deliveries stay due for the next run', async () => {
    const channel = await buildChannel(company);
    const waiting = await buildDelivery(company, channel.id);
    await pause(channel.id);
    const res = await post(`/api/v1/notification-channels/${channel.id}/resume/`, undefined, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ id: channel.id, state: 'active', paused_at: null, paused_reason: null, next_probe_at: null, consecutive_failures: 0 });
    expect(await breakerOf(channel.id)).to.deep.equal({ consecutive_failures: 0, paused_at: null, paused_reason: null, next_probe_at: null });
    expect(await row('SELECT status, attempts FROM notification_deliveries WHERE id = $1', [waiting.id])).to.deep.equal({ status: 'PENDING', attempts: 0 });
  });

  it('answers a channel that is not paused unchanged (200), and takes `{}` as the body', async () => {
    const channel = await buildChannel(company);
    const before = await get(`/api/v1/notification-channels/${channel.id}/`, { token: company.token });
    const res = await post(`/api/v1/notification-channels/${channel.id}/resume/`, {}, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal(before.body);
  });

  it('refuses a body with fields (400) and a malformed id (400), and answers 404 for an unknown channel, changing nothing', async () => {
    const channel = await buildChannel(company);
    await pause(channel.id);
    expectValidationError(await post(`/api/v1/notification-channels/${channel.id}/resume/`, { force: true }, { token: company.token }), 'force');
    expectValidationError(await post('/api/v1/notification-channels/not-an-id/resume/', undefined, { token: company.token }), 'id');
    expectNotFound(await post(`/api/v1/notification-channels/${randomUUID()}/resume/`, undefined, { token: company.token }));
    expect((await breakerOf(channel.id)).paused_at?.toISOString()).to.equal(PAUSED_AT);
  });

  it('refuses a member (403 permission_denied) and another company’s admin (403 access_denied): the channel stays paused', async () => {
    const channel = await buildChannel(company);
    await pause(channel.id);
    const member = await buildUser(company);
    expectPermissionDenied(await post(`/api/v1/notification-channels/${channel.id}/resume/`, undefined, { token: member.token }), [channel.secret]);
    const other = await buildCompany();
    expectAccessDenied(await post(`/api/v1/notification-channels/${channel.id}/resume/`, undefined, { token: other.token }), [channel.secret, company.id]);
    expect(await breakerOf(channel.id)).to.deep.include({ consecutive_failures: 5, paused_reason: REASON });
  });

  it('answers 409 channel_paused to a test send on a paused channel, sending and recording nothing', async () => {
    const channel = await buildChannel(company);
    await pause(channel.id);
    const res = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
    expectErrorShape(res, 409, 'channel_paused');
    expect(res.body.details).to.deep.equal({ state: 'paused', paused_at: PAUSED_AT });
    expect(await query('SELECT id FROM notification_deliveries WHERE channel_id = $1', [channel.id])).to.have.length(0);
  });

  it('with a queue, queues the resumed channel’s waiting deliveries at once (one job each)', async function () {
    await requireRedis(this, 'resume with a delivery queue');
    const monitor = await startQueuedMonitor('resume-test');
    try {
      const channel = await buildChannel(company);
      const waiting = [await buildDelivery(company, channel.id), await buildDelivery(company, channel.id)];
      await pause(channel.id);
      const res = await post(`/api/v1/notification-channels/${channel.id}/resume/`, undefined, { token: company.token, baseUrl: monitor.gatewayUrl });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const jobs = await monitor.queue.queue.getJobs(['waiting', 'delayed', 'prioritized']);
      expect(jobs.map((j) => j.data.deliveryId).sort()).to.deep.equal(waiting.map((d) => d.id).sort());
    } finally {
      await monitor.close();
    }
  });
});

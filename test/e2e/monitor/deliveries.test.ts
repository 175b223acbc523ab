/**
 * /api/v1/notification-deliveries/ (admins only): the delivery log with each delivery's attempts, after real
 * test sends to a receiver on 127.0.0.1, and with rows written straight into the outbox where a test needs
 * many attempts.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post } from '../../support/api';
import { expectNotFound, expectPermissionDenied, expectValidationError } from '../../support/assertions';
import { TestCompany, buildCompany, buildProduct, buildUser } from '../../support/builders';
import { Receiver, startReceiver } from '../../support/receiver';
import { buildChannel, buildDelivery, buildEvent } from './helpers';

const DELIVERY_KEYS = [
  'id',
  'channel_id',
  'event_id',
  'event_type',
  'status',
  'attempt_count',
  'max_attempts',
  'next_attempt_at',
  'last_status_code',
  'last_error',
  'delivered_at',
  'created_at',
  'body',
  'attempts',
];

async function listDeliveries(company: TestCompany, query = '') {
  const res = await get(`/api/v1/notification-deliveries/?page_size=500${query}`, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body as { count: number; next: string | null; results: Array<Record<string, any>> };
}

describe('/api/v1/notification-deliveries/', () => {
  let company: TestCompany;
  let receiver: Receiver;
  let good: { id: string };
  let bad: { id: string };
  let delivered: Record<string, any>;
  let retrying: Record<string, any>;
  before(async () => {
    company = await buildCompany();
    receiver = await startReceiver();
    good = await buildChannel(company, { name: 'Good', url: receiver.url });
    bad = await buildChannel(company, { name: 'Bad', url: receiver.url.replace('/hooks/', '/failing/') });
    delivered = (await post(`/api/v1/notification-channels/${good.id}/test/`, undefined, { token: company.token })).body.delivery;
    receiver.status = 500;
    retrying = (await post(`/api/v1/notification-channels/${bad.id}/test/`, undefined, { token: company.token })).body.delivery;
    receiver.status = 200;
  });
  after(async () => {
    await receiver.close();
  });

  it('lists the company’s deliveries newest first, each with its attempts', async () => {
    const list = await listDeliveries(company);
    expect(list.count).to.equal(2);
    expect(list.results.map((d) => d.id)).to.deep.equal([retrying.id, delivered.id]);
    for (const d of list.results) expect(d).to.have.all.keys(...DELIVERY_KEYS);
    expect(list.results[1]).to.deep.equal(delivered);
    expect(list.results[0]).to.deep.include({ channel_id: bad.id, status: 'RETRYING', attempt_count: 1, last_status_code: 500 });
    expect(list.results[0].attempts.map((a: { ok: boolean; status_code: number }) => [a.ok, a.status_code])).to.deep.equal([[false, 500]]);
    expect(list.results[0].body).to.deep.include({ type: 'TEST', company_id: company.id });
  });

  it('retrieves one delivery with its attempts', async () => {
    const res = await get(`/api/v1/notification-deliveries/${delivered.id}/`, { token: company.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(delivered);
    expect(res.body.attempts).to.have.length(1);
    expect(res.body.attempts[0]).to.deep.include({ number: 1, ok: true, status_code: 200 });
    const [attempt] = res.body.attempts;
    expect(attempt.duration_ms, 'the time between start and finish').to.equal(Date.parse(attempt.finished_at) - Date.parse(attempt.started_at));
  });

  it('filters by channel_id, status and event_type', async () => {
    expect((await listDeliveries(company, `&channel_id=${good.id}`)).results.map((d) => d.id)).to.deep.equal([delivered.id]);
    expect((await listDeliveries(company, '&status=RETRYING')).results.map((d) => d.id)).to.deep.equal([retrying.id]);
    expect((await listDeliveries(company, '&status=FAILED')).count).to.equal(0);
    expect((await listDeliveries(company, '&event_type=TEST')).count).to.equal(2);
    expect((await listDeliveries(company, '&event_type=THRESHOLD')).count).to.equal(0);
  });

  it('filters by event_id', async () => {
    const fresh = await buildCompany();
    const channel = await buildChannel(fresh);
    const product = await buildProduct(fresh);
    const event = await buildEvent(fresh, product);
    const other = await buildDelivery(fresh, channel.id);
    const ofEvent = await buildDelivery(fresh, channel.id);
    await ofEvent.update({ eventId: event.id, eventType: 'THRESHOLD' });
    expect((await listDeliveries(fresh, `&event_id=${event.id}`)).results.map((d) => d.id)).to.deep.equal([ofEvent.id]);
    expect((await listDeliveries(fresh)).results.map((d) => d.id)).to.have.members([ofEvent.id, other.id]);
  });

  it('gives every delivery of a page its own attempts, in order', async () => {
    const fresh = await buildCompany();
    const channel = await buildChannel(fresh);
    const made = [];
    for (let i = 0; i < 4; i += 1) {
      made.push(await buildDelivery(fresh, channel.id, [...Array.from({ length: i }, () => ({ ok: false, statusCode: 500 })), { ok: true, statusCode: 204 }]));
    }
    const list = await listDeliveries(fresh);
    expect(list.count).to.equal(4);
    for (const [i, delivery] of made.entries()) {
      const listed = list.results.find((d) => d.id === delivery.id)!;
      expect(listed.attempts.map((a: { number: number }) => a.number)).to.deep.equal(Array.from({ length: i + 1 }, (_, n) => n + 1));
      expect(listed.attempts.at(-1)).to.deep.include({ ok: true, status_code: 204 });
    }
    const page = await get('/api/v1/notification-deliveries/?page_size=3&page=2', { token: fresh.token });
    expect(page.body.count).to.equal(4);
    expect(page.body.results).to.have.length(1);
    expect(page.body.previous).to.match(/page=1/);
  });

  it('answers 400 naming a bad filter, 404 for a channel, event or delivery that exists nowhere', async () => {
    expectValidationError(await get('/api/v1/notification-deliveries/?status=SENT', { token: company.token }), 'status');
    expectValidationError(await get('/api/v1/notification-deliveries/?channel_id=1', { token: company.token }), 'channel_id');
    expectNotFound(await get(`/api/v1/notification-deliveries/?channel_id=${randomUUID()}`, { token: company.token }));
    expectNotFound(await get(`/api/v1/notification-deliveries/?event_id=${randomUUID()}`, { token: company.token }));
    expectNotFound(await get(`/api/v1/notification-deliveries/${randomUUID()}/`, { token: company.token }));
    expectValidationError(await get('/api/v1/notification-deliveries/x/', { token: company.token }), 'id');
  });

  it('answers 403 permission_denied to a member (the delivery log belongs with channel management)', async () => {
    const member = await buildUser(company);
    expectPermissionDenied(await get('/api/v1/notification-deliveries/', { token: member.token }));
    expectPermissionDenied(await get(`/api/v1/notification-deliveries/${delivered.id}/`, { token: member.token }));
  });
});

/**
 * /api/v1/notification-channels/ (admins only): WEBHOOK and EMAIL channels, their server-generated secret
 * (encrypted at rest, shown to the company's admins, rotatable), the SSRF check of webhook URLs at save, and
 * the test action, which sends a signed TEST event to a receiver the test starts on 127.0.0.1 (allowed
 * because the test system sets ALLOW_LOOPBACK_WEBHOOKS).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { closeServer, createLogger, createServiceApp, listen, pathsOf } from '@pi/common';
import { DeliveryQueue, decryptSecret, parseEncryptionKey, verifySignature } from '@pi/notify';
import { loadMonitorSettings, monitorApi, monitorRoutes } from '@pi/monitor';
import { CLOSED_PORT } from '../../support/closed-port';
import { del, get, patch, post } from '../../support/api';
import { expectErrorShape, expectNotFound, expectPermissionDenied, expectValidationError } from '../../support/assertions';
import { TestCompany, buildCompany, buildUser } from '../../support/builders';
import { system } from '../../support/hooks';
import type { RunningGateway } from '../../support/system';
import { holdLock, lineUpBehind } from '../../support/held-lock';
import { count, query, row } from '../../support/sql';
import { Receiver, startReceiver } from '../../support/receiver';
import { REDIS_URL, requireRedis } from '../../support/redis';
import { buildChannel } from './helpers';

const CHANNEL_KEYS = [
  'id',
  'name',
  'kind',
  'url',
  'recipients',
  'events',
  'max_attempts',
  'is_active',
  'state',
  'paused_at',
  'paused_reason',
  'next_probe_at',
  'consecutive_failures',
  'secret',
  'email_backend',
  'created_at',
  'updated_at',
];
const SECRET = /^whsec_[A-Za-z0-9_-]{43}$/;

const channelsOf = (company: TestCompany) => count('SELECT count(*) FROM notification_channels WHERE company_id = $1', [company.id]);
const readChannel = (id: string) => row<Record<string, any>>('SELECT * FROM notification_channels WHERE id = $1', [id]);
const storedSecret = async (id: string) => decryptSecret((await readChannel(id)).secret_encrypted, parseEncryptionKey(system().secretEncryptionKey));

describe('/api/v1/notification-channels/: CRUD and secrets', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
  });

  it('creates a WEBHOOK channel (201) with a server-generated secret, stored only encrypted', async () => {
    const res = await post(
      '/api/v1/notification-channels/',
      { name: 'Ops webhook', kind: 'WEBHOOK', url: 'https://93.184.216.34/hooks', events: ['THRESHOLD', 'TEST'] },
      { token: company.token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.have.all.keys(...CHANNEL_KEYS);
    expect(res.body).to.deep.include({
      name: 'Ops webhook',
      kind: 'WEBHOOK',
      url: 'https://93.184.216.34/hooks',
      recipients: null,
      events: ['THRESHOLD', 'TEST'],
      max_attempts: 5,
      is_active: true,
      state: 'active',
      paused_at: null,
      paused_reason: null,
      next_probe_at: null,
      consecutive_failures: 0,
    });
    expect(res.body.secret).to.match(SECRET);
    const stored = await readChannel(res.body.id);
    expect(stored.company_id).to.equal(company.id);
    expect(stored.secret_encrypted).to.be.a('string').and.not.include(res.body.secret);
    expect(await storedSecret(res.body.id)).to.equal(res.body.secret);
    expect(JSON.stringify(stored)).not.to.include(res.body.secret);
  });

  it('creates an EMAIL channel (201) with recipients, no url and no signing secret, saying how email is sent', async () => {
    const res = await post(
      '/api/v1/notification-channels/',
      { name: 'Ops mail', kind: 'EMAIL', recipients: ['Ops@Example.com', 'lead@example.com'], events: ['DATE_OFFSET'], max_attempts: 2, is_active: false },
      { token: company.token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.deep.include({
      kind: 'EMAIL',
      url: null,
      recipients: ['ops@example.com', 'lead@example.com'],
      events: ['DATE_OFFSET'],
      max_attempts: 2,
      is_active: false,
    });
    expect(res.body).to.have.all.keys(...CHANNEL_KEYS);
    // The test system's monitor runs with EMAIL_BACKEND=console: the answer says so, and shows no webhook secret.
    expect(res.body).to.deep.include({ secret: null, email_backend: 'console' });
    for (const answer of [
      await get(`/api/v1/notification-channels/${res.body.id}/`, { token: company.token }),
      await get('/api/v1/notification-channels/?kind=EMAIL', { token: company.token }),
    ]) {
      expect(answer.status).to.equal(200);
      const channel = answer.body.results ? answer.body.results.find((c: { id: string }) => c.id === res.body.id) : answer.body;
      expect(channel).to.deep.include({ secret: null, email_backend: 'console' });
    }
    const webhook = await buildChannel(company);
    expect(webhook).to.deep.include({ email_backend: null });
    expect(webhook.secret).to.match(SECRET);
  });

  it('answers 409 webhook_only to rotating the secret of an EMAIL channel, and changes nothing', async () => {
    const email = await buildChannel(company, { kind: 'EMAIL' });
    const before = await query('SELECT secret_encrypted, updated_at FROM notification_channels WHERE id = $1', [email.id]);
    const res = await post(`/api/v1/notification-channels/${email.id}/rotate-secret/`, undefined, { token: company.token });
    expectErrorShape(res, 409, 'webhook_only');
    expect(res.body.details).to.deep.equal({ kind: 'EMAIL' });
    expect(await query('SELECT secret_encrypted, updated_at FROM notification_channels WHERE id = $1', [email.id])).to.deep.equal(before);
  });

  it('shows the secret to the company’s admins on list and retrieve', async () => {
    const created = await buildChannel(company, { name: 'Listed' });
    const one = await get(`/api/v1/notification-channels/${created.id}/`, { token: company.token });
    expect(one.status).to.equal(200);
    expect(one.body).to.deep.equal(created);
    const list = await get('/api/v1/notification-channels/?page_size=500', { token: company.token });
    expect(list.status).to.equal(200);
    expect(list.body.results.find((c: { id: string }) => c.id === created.id)).to.deep.equal(created);

    const admin2 = await buildUser(company, { role: 'admin' });
    expect((await get(`/api/v1/notification-channels/${created.id}/`, { token: admin2.token })).body.secret).to.equal(created.secret);
  });

  it('filters the list by kind and is_active, and pages it', async () => {
    const fresh = await buildCompany();
    await buildChannel(fresh, { name: 'A' });
    await buildChannel(fresh, { name: 'B', kind: 'EMAIL' });
    await buildChannel(fresh, { name: 'C', is_active: false });
    const names = async (q: string) =>
      (await get(`/api/v1/notification-channels/?${q}`, { token: fresh.token })).body.results.map((c: { name: string }) => c.name);
    expect(await names('')).to.deep.equal(['A', 'B', 'C']);
    expect(await names('kind=EMAIL')).to.deep.equal(['B']);
    expect(await names('is_active=false')).to.deep.equal(['C']);
    const page = await get('/api/v1/notification-channels/?page_size=2&page=2', { token: fresh.token });
    expect(page.body).to.deep.include({ count: 3 });
    expect(page.body.results.map((c: { name: string }) => c.name)).to.deep.equal(['C']);
  });

  it('rotates the secret (200 with the new one); the old one is gone', async () => {
    const created = await buildChannel(company);
    const res = await post(`/api/v1/notification-channels/${created.id}/rotate-secret/`, undefined, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.have.all.keys(...CHANNEL_KEYS);
    expect(res.body.secret).to.match(SECRET).and.not.equal(created.secret);
    expect(await storedSecret(created.id)).to.equal(res.body.secret);
    expect((await get(`/api/v1/notification-channels/${created.id}/`, { token: company.token })).body.secret).to.equal(res.body.secret);
  });

  it('updates name, events, max_attempts, is_active and the url (checked again)', async () => {
    const created = await buildChannel(company);
    const res = await patch(
      `/api/v1/notification-channels/${created.id}/`,
      { name: 'Renamed', events: ['DATE_OFFSET'], max_attempts: 3, is_active: false, url: 'http://93.184.216.34:8080/x' },
      { token: company.token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({
      name: 'Renamed',
      events: ['DATE_OFFSET'],
      max_attempts: 3,
      is_active: false,
      url: 'http://93.184.216.34:8080/x',
      secret: created.secret,
    });
    const email = await buildChannel(company, { kind: 'EMAIL' });
    const recipients = await patch(`/api/v1/notification-channels/${email.id}/`, { recipients: ['new@example.com'] }, { token: company.token });
    expect(recipients.status, JSON.stringify(recipients.body)).to.equal(200);
    expect(recipients.body.recipients).to.deep.equal(['new@example.com']);
  });

  it('refuses a url on an EMAIL channel, recipients on a WEBHOOK channel, a kind change and an empty PATCH (400); nothing changes', async () => {
    const webhook = await buildChannel(company);
    const email = await buildChannel(company, { kind: 'EMAIL' });
    const before = [await readChannel(webhook.id), await readChannel(email.id)];
    expectValidationError(await patch(`/api/v1/notification-channels/${email.id}/`, { url: 'http://93.184.216.34/' }, { token: company.token }), 'url');
    expectValidationError(
      await patch(`/api/v1/notification-channels/${webhook.id}/`, { recipients: ['a@example.com'] }, { token: company.token }),
      'recipients',
    );
    expectValidationError(await patch(`/api/v1/notification-channels/${webhook.id}/`, { kind: 'EMAIL' }, { token: company.token }), 'kind');
    expectValidationError(await patch(`/api/v1/notification-channels/${webhook.id}/`, { secret: 'mine' }, { token: company.token }), 'secret');
    expectValidationError(await patch(`/api/v1/notification-channels/${webhook.id}/`, {}, { token: company.token }), 'body');
    expect([await readChannel(webhook.id), await readChannel(email.id)]).to.deep.equal(before);
  });

  it('deletes a channel (204) with its deliveries and their attempts', async () => {
    const receiver = await startReceiver();
    try {
      const created = await buildChannel(company, { url: receiver.url });
      const sent = await post(`/api/v1/notification-channels/${created.id}/test/`, undefined, { token: company.token });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
      const res = await del(`/api/v1/notification-channels/${created.id}/`, { token: company.token });
      expect(res.status).to.equal(204);
      expectNotFound(await get(`/api/v1/notification-channels/${created.id}/`, { token: company.token }));
      expect(await count('SELECT count(*) FROM notification_deliveries WHERE channel_id = $1', [created.id])).to.equal(0);
      expect(await count('SELECT count(*) FROM notification_attempts WHERE delivery_id = $1', [sent.body.delivery.id])).to.equal(0);
      expectNotFound(await get(`/api/v1/notification-deliveries/${sent.body.delivery.id}/`, { token: company.token }));
    } finally {
      await receiver.close();
    }
  });

  it('deletes a channel while one of its deliveries is being sent (204), and the send ends without a 500', async () => {
    const receiver = await startReceiver();
    const created = await buildChannel(company, { url: receiver.url });
    // Hold the channel: the delete queues on it first, then the test send, which has locked its new delivery.
    const lock = await holdLock('SELECT id FROM notification_channels WHERE id = $1 FOR NO KEY UPDATE', [created.id]);
    const [deleted, sent] = await lineUpBehind(lock, [
      () => del(`/api/v1/notification-channels/${created.id}/`, { token: company.token }),
      () => post(`/api/v1/notification-channels/${created.id}/test/`, undefined, { token: company.token }),
    ]).finally(() => receiver.close());
    expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);
    expect(sent.status, JSON.stringify(sent.body)).to.be.below(500);
    expect(await count('SELECT count(*) FROM notification_deliveries WHERE channel_id = $1', [created.id])).to.equal(0);
  });

  it('answers 404 to a test send whose channel is deleted between its read and its delivery (not a 500)', async () => {
    const created = await buildChannel(company, { url: 'http://127.0.0.1:1/hook' });
    // Held in a mode the delivery's reference to the channel waits for: the delete queues first, the send's insert behind it.
    const lock = await holdLock('SELECT id FROM notification_channels WHERE id = $1 FOR UPDATE', [created.id]);
    const [deleted, sent] = await lineUpBehind(lock, [
      () => del(`/api/v1/notification-channels/${created.id}/`, { token: company.token }),
      () => post(`/api/v1/notification-channels/${created.id}/test/`, undefined, { token: company.token }),
    ]);
    expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);
    expectNotFound(sent);
    expect(await count('SELECT count(*) FROM notification_deliveries WHERE channel_id = $1', [created.id])).to.equal(0);
  });

  it('answers 404 for a channel that exists nowhere on every endpoint, and 400 naming id for a malformed one', async () => {
    const id = randomUUID();
    expectNotFound(await get(`/api/v1/notification-channels/${id}/`, { token: company.token }));
    expectNotFound(await patch(`/api/v1/notification-channels/${id}/`, { name: 'x' }, { token: company.token }));
    expectNotFound(await del(`/api/v1/notification-channels/${id}/`, { token: company.token }));
    expectNotFound(await post(`/api/v1/notification-channels/${id}/rotate-secret/`, undefined, { token: company.token }));
    expectNotFound(await post(`/api/v1/notification-channels/${id}/test/`, undefined, { token: company.token }));
    expectNotFound(await post(`/api/v1/notification-channels/${id}/resume/`, undefined, { token: company.token }));
    expectValidationError(await get('/api/v1/notification-channels/123/', { token: company.token }), 'id');
  });
});

describe('/api/v1/notification-channels/: members', () => {
  it('answers 403 permission_denied to a member on every endpoint, showing no secret and changing nothing', async () => {
    const company = await buildCompany();
    const member = await buildUser(company);
    const channel = await buildChannel(company);
    const before = await readChannel(channel.id);
    const base = '/api/v1/notification-channels';
    const answers = [
      await get(`${base}/`, { token: member.token }),
      await post(`${base}/`, { name: 'x', kind: 'WEBHOOK', url: 'http://93.184.216.34/', events: ['TEST'] }, { token: member.token }),
      await get(`${base}/${channel.id}/`, { token: member.token }),
      await patch(`${base}/${channel.id}/`, { name: 'taken over' }, { token: member.token }),
      await del(`${base}/${channel.id}/`, { token: member.token }),
      await post(`${base}/${channel.id}/rotate-secret/`, undefined, { token: member.token }),
      await post(`${base}/${channel.id}/test/`, undefined, { token: member.token }),
      await post(`${base}/${channel.id}/resume/`, undefined, { token: member.token }),
    ];
    for (const res of answers) expectPermissionDenied(res, [channel.secret]);
    expect(await readChannel(channel.id)).to.deep.equal(before);
    expect(await channelsOf(company)).to.equal(1);
    expect(await count('SELECT count(*) FROM notification_deliveries WHERE channel_id = $1', [channel.id])).to.equal(0);
  });
});

describe('POST /api/v1/notification-channels/: validation', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
  });

  const webhook = { name: 'Hook', kind: 'WEBHOOK', url: 'http://93.184.216.34/hook', events: ['THRESHOLD'] };
  const email = { name: 'Mail', kind: 'EMAIL', recipients: ['ops@example.com'], events: ['THRESHOLD'] };
  const without = (body: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));
  const cases: Array<{ when: string; body: unknown; field: string }> = [
    { when: 'a WEBHOOK channel has no url', body: without(webhook, 'url'), field: 'url' },
    { when: 'the url is not http or https', body: { ...webhook, url: 'ftp://93.184.216.34/x' }, field: 'url' },
    { when: 'the url is not a URL', body: { ...webhook, url: 'hooks here' }, field: 'url' },
    { when: 'the url carries credentials', body: { ...webhook, url: 'http://user:pw@93.184.216.34/x' }, field: 'url' },
    { when: 'a WEBHOOK channel has recipients', body: { ...webhook, recipients: ['a@example.com'] }, field: 'recipients' },
    { when: 'an EMAIL channel has no recipients', body: without(email, 'recipients'), field: 'recipients' },
    { when: 'an EMAIL channel has an empty recipient list', body: { ...email, recipients: [] }, field: 'recipients' },
    {
      when: 'an EMAIL channel has 21 recipients',
      body: { ...email, recipients: Array.from({ length: 21 }, (_, i) => `r${i}@example.com`) },
      field: 'recipients',
    },
    { when: 'a recipient is not an email address', body: { ...email, recipients: ['ops@example.com', 'not-an-email'] }, field: 'recipients.1' },
    { when: 'an EMAIL channel has a url', body: { ...email, url: 'http://93.184.216.34/' }, field: 'url' },
    { when: 'events is empty', body: { ...webhook, events: [] }, field: 'events' },
    { when: 'events is missing', body: without(webhook, 'events'), field: 'events' },
    { when: 'events names an unknown type', body: { ...webhook, events: ['THRESHOLD', 'CUSTOM'] }, field: 'events.1' },
    { when: 'max_attempts is 6', body: { ...webhook, max_attempts: 6 }, field: 'max_attempts' },
    { when: 'max_attempts is 0', body: { ...webhook, max_attempts: 0 }, field: 'max_attempts' },
    { when: 'kind is unknown', body: { ...webhook, kind: 'SMS' }, field: 'kind' },
    { when: 'name is missing', body: without(webhook, 'name'), field: 'name' },
    { when: 'a secret is sent', body: { ...webhook, secret: 'my-own-secret' }, field: 'secret' },
    { when: 'an unknown field is sent', body: { ...webhook, headers: { a: 'b' } }, field: 'headers' },
  ];
  for (const c of cases) {
    it(`answers 400 naming ${c.field} and creates nothing when ${c.when}`, async () => {
      expectValidationError(await post('/api/v1/notification-channels/', c.body, { token: company.token }), c.field);
      expect(await channelsOf(company)).to.equal(0);
    });
  }
});

describe('notification channels: the SSRF check at save', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
  });

  const refused = [
    'http://10.0.0.1/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://192.168.1.1/hook',
    'http://100.64.0.1/hook',
    'http://[::ffff:10.0.0.1]/hook',
    'http://172.16.0.1/hook',
    'http://0.0.0.0/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
    'http://224.0.0.1/hook',
  ];
  for (const url of refused) {
    it(`refuses ${url} (400 naming url), on create and on update, saving nothing`, async () => {
      const created = await post('/api/v1/notification-channels/', { name: 'Internal', kind: 'WEBHOOK', url, events: ['TEST'] }, { token: company.token });
      expectValidationError(created, 'url');
      expect(created.body.details.url).to.match(/private, loopback or link-local/);
      expect(JSON.stringify(created.body)).not.to.include(new URL(url).hostname.replace(/[[\]]/g, ''));

      const channel = await buildChannel(company, { url: 'http://93.184.216.34/hook' });
      expectValidationError(await patch(`/api/v1/notification-channels/${channel.id}/`, { url }, { token: company.token }), 'url');
      expect((await readChannel(channel.id)).url).to.equal('http://93.184.216.34/hook');
      await del(`/api/v1/notification-channels/${channel.id}/`, { token: company.token });
      expect(await channelsOf(company)).to.equal(0);
    });
  }

  it('accepts a public address (93.184.216.34) and, because the test settings allow it, loopback (127.0.0.1)', async () => {
    for (const url of ['https://93.184.216.34/hook', 'http://127.0.0.1:8080/hook']) {
      const res = await post('/api/v1/notification-channels/', { name: 'Hook', kind: 'WEBHOOK', url, events: ['TEST'] }, { token: company.token });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).to.equal(201);
      await del(`/api/v1/notification-channels/${res.body.id}/`, { token: company.token });
    }
  });
});

describe('POST /api/v1/notification-channels/{id}/test/', () => {
  let company: TestCompany;
  let receiver: Receiver;
  before(async () => {
    company = await buildCompany();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.status = 200;
  });

  it('sends a TEST event now, signed with the channel secret, and answers 200 with the DELIVERED delivery and its attempt', async () => {
    const channel = await buildChannel(company, { url: receiver.url });
    const res = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.have.all.keys('delivery');
    const delivery = res.body.delivery;
    expect(delivery).to.deep.include({
      channel_id: channel.id,
      event_id: null,
      event_type: 'TEST',
      status: 'DELIVERED',
      attempt_count: 1,
      max_attempts: 5,
      next_attempt_at: null,
      last_status_code: 200,
      last_error: null,
    });
    expect(delivery.delivered_at).to.be.a('string');
    expect(delivery.attempts).to.have.length(1);
    expect(delivery.attempts[0]).to.have.all.keys(
      'number',
      'status',
      'ok',
      'status_code',
      'error',
      'response_excerpt',
      'duration_ms',
      'started_at',
      'finished_at',
    );
    expect(delivery.attempts[0]).to.deep.include({ number: 1, status: 'SUCCEEDED', ok: true, status_code: 200, error: null, response_excerpt: 'thanks' });
    expect(Date.parse(delivery.attempts[0].finished_at)).to.be.at.least(Date.parse(delivery.attempts[0].started_at));

    expect(receiver.requests).to.have.length(1);
    const request = receiver.requests[0];
    expect(request.method).to.equal('POST');
    expect(request.path).to.equal('/hooks/inventory');
    expect(request.headers['content-type']).to.match(/^application\/json/);
    expect(verifySignature(request.body, channel.secret, request.headers['x-pi-signature'] as string)).to.equal(true);
    expect(verifySignature(request.body, 'whsec_another', request.headers['x-pi-signature'] as string)).to.equal(false);
    const body = JSON.parse(request.body);
    expect(body).to.have.all.keys('event_id', 'type', 'company_id', 'product', 'payload', 'created_at');
    expect(body).to.deep.include({ type: 'TEST', company_id: company.id });
    expect(body.payload).to.include({ status: 'OPEN', rule_id: null, batch_id: null });
    expect(delivery.body).to.deep.equal(body);
  });

  it('signs with the new secret after a rotation', async () => {
    const channel = await buildChannel(company, { url: receiver.url });
    const rotated = await post(`/api/v1/notification-channels/${channel.id}/rotate-secret/`, undefined, { token: company.token });
    await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
    const request = receiver.requests[0];
    expect(verifySignature(request.body, rotated.body.secret, request.headers['x-pi-signature'] as string)).to.equal(true);
    expect(verifySignature(request.body, channel.secret, request.headers['x-pi-signature'] as string)).to.equal(false);
  });

  it('sends to a channel that does not list TEST in its events (the admin asked for this channel)', async () => {
    const channel = await buildChannel(company, { url: receiver.url, events: ['THRESHOLD'] });
    const res = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.delivery.status).to.equal('DELIVERED');
    expect(receiver.requests).to.have.length(1);
  });

  it('records a failed attempt and schedules the retry 2 minutes later when the receiver answers 500', async () => {
    receiver.status = 500;
    const channel = await buildChannel(company, { url: receiver.url });
    const before = Date.now();
    const res = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const delivery = res.body.delivery;
    expect(delivery).to.deep.include({ status: 'RETRYING', attempt_count: 1, last_status_code: 500, delivered_at: null });
    expect(delivery.last_error).to.be.a('string').and.not.empty;
    expect(delivery.attempts[0]).to.deep.include({ number: 1, ok: false, status_code: 500, response_excerpt: 'receiver failed' });
    expect(new Date(delivery.next_attempt_at).getTime()).to.be.within(before + 120_000 - 1000, Date.now() + 120_000 + 1000);
  });

  it('ends as FAILED, with no next attempt, when a channel allowing one attempt fails', async () => {
    receiver.status = 503;
    const channel = await buildChannel(company, { url: receiver.url, max_attempts: 1 });
    const res = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.delivery).to.deep.include({ status: 'FAILED', attempt_count: 1, max_attempts: 1, next_attempt_at: null, last_status_code: 503 });
  });

  it('sends a TEST email through the console backend (200, DELIVERED)', async () => {
    const channel = await buildChannel(company, { kind: 'EMAIL', recipients: ['ops@example.com'] });
    const res = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.delivery).to.deep.include({ channel_id: channel.id, event_type: 'TEST', status: 'DELIVERED', attempt_count: 1 });
  });

  it('answers 409 channel_inactive for an inactive channel, sending and recording nothing', async () => {
    const channel = await buildChannel(company, { url: receiver.url, is_active: false });
    const res = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
    expectErrorShape(res, 409, 'channel_inactive');
    expect(receiver.requests).to.have.length(0);
    expect(await count('SELECT count(*) FROM notification_deliveries WHERE channel_id = $1', [channel.id])).to.equal(0);
  });

  it('keeps the secret out of the delivery record, its attempts and every log line', async () => {
    const channel = await buildChannel(company, { url: receiver.url });
    receiver.status = 500;
    const res = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
    expect(res.status).to.equal(200);
    const records = await query(
      'SELECT d.*, a.* FROM notification_deliveries d LEFT JOIN notification_attempts a ON a.delivery_id = d.id WHERE d.channel_id = $1',
      [channel.id],
    );
    expect(records).to.have.length(1);
    expect(JSON.stringify(records)).not.to.include(channel.secret);
    expect(JSON.stringify(res.body)).not.to.include(channel.secret);
    const list = await get(`/api/v1/notification-deliveries/?channel_id=${channel.id}`, { token: company.token });
    expect(JSON.stringify(list.body)).not.to.include(channel.secret);
    expect(system().logs.text()).not.to.include(channel.secret);
    expect(system().logs.text()).not.to.include(system().secretEncryptionKey);
  });
});

describe('POST /api/v1/notification-channels/{id}/test/ with a delivery queue (REDIS_URL set)', () => {
  const queueName = `monitor-test-${randomUUID()}`;

  /** Runs `body` against a second monitor service on the same database, with `queue`, behind a gateway of its own. */
  async function withQueuedMonitor(queue: DeliveryQueue, body: (gateway: RunningGateway) => Promise<void>): Promise<void> {
    const s = system();
    const config = {
      PUBLIC_BASE_URL: 'http://localhost:8000',
      ...loadMonitorSettings({ NODE_ENV: 'test', SECRET_ENCRYPTION_KEY: s.secretEncryptionKey, REDIS_URL, DELIVERY_QUEUE_NAME: queueName }),
    };
    const logger = createLogger('monitor', 'info', s.logs);
    const app = createServiceApp(
      { logger, db: s.db, internalJwtSecret: s.internalJwtSecret, paths: pathsOf(monitorApi) },
      monitorRoutes({ db: s.db, config, logger, queue }),
    );
    const server = await listen(app, 0, '127.0.0.1');
    const gateway = await s.startGateway({ MONITOR_URL: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
    try {
      await body(gateway);
    } finally {
      await gateway.close();
      await closeServer(server, 2000);
    }
  }

  it('queues the TEST delivery (202, PENDING, no attempt yet); the job carries the delivery id and nothing else', async function () {
    await requireRedis(this, 'the TEST delivery through the queue');
    const queue = new DeliveryQueue(REDIS_URL, { name: queueName, connectTimeoutMs: 2000 });
    try {
      await queue.queue.waitUntilReady();
      await withQueuedMonitor(queue, async (gateway) => {
        const company = await buildCompany();
        const channel = await buildChannel(company);
        const res = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token, baseUrl: gateway.url });
        expect(res.status, JSON.stringify(res.body)).to.equal(202);
        expect(res.body.delivery).to.deep.include({ channel_id: channel.id, event_type: 'TEST', status: 'PENDING', attempt_count: 0, attempts: [] });
        const jobs = await queue.queue.getJobs(['waiting', 'delayed', 'prioritized']);
        const ours = jobs.filter((j) => j.data.deliveryId === res.body.delivery.id);
        expect(ours).to.have.length(1);
        expect(ours[0].data).to.deep.equal({ deliveryId: res.body.delivery.id });
        expect(JSON.stringify(ours[0])).not.to.include(channel.secret);
      });
    } finally {
      await queue.queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
    }
  });

  it('still answers 202 when Redis is unreachable: the delivery stays due in the outbox for the next check_rules run', async () => {
    const queue = new DeliveryQueue(`redis://127.0.0.1:${CLOSED_PORT}`, { name: queueName, connectTimeoutMs: 300 });
    try {
      await withQueuedMonitor(queue, async (gateway) => {
        const company = await buildCompany();
        const channel = await buildChannel(company);
        const res = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token, baseUrl: gateway.url });
        expect(res.status, JSON.stringify(res.body)).to.equal(202);
        expect(res.body.delivery).to.deep.include({ status: 'PENDING', attempt_count: 0 });
        const stored = await row<{ status: string; next_attempt_at: Date }>('SELECT status, next_attempt_at FROM notification_deliveries WHERE id = $1', [
          res.body.delivery.id,
        ]);
        expect(stored.status).to.equal('PENDING');
        expect(new Date(stored.next_attempt_at).getTime()).to.be.at.most(Date.now());
      });
    } finally {
      await queue.close();
    }
  });
});

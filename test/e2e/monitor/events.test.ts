/**
 * /api/v1/events/: the event log. Events are written straight into the table here (check_rules opens them);
 * the API lists and filters them, and users move OPEN events to RESOLVED or IGNORED (recording who and when).
 * Every other move is 409 invalid_transition with allowed_transitions; racing moves: exactly one wins.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post } from '../../support/api';
import { expectNotFound, expectValidationError } from '../../support/assertions';
import { TestCompany, TestProduct, buildCompany, buildProduct, buildUser } from '../../support/builders';
import { row } from '../../support/sql';
import { buildEvent, expectInvalidTransition } from './helpers';

const EVENT_KEYS = [
  'id',
  'rule_id',
  'rule_source',
  'product_id',
  'batch_id',
  'trigger_type',
  'severity',
  'message',
  'details',
  'status',
  'allowed_transitions',
  'status_changed_by',
  'status_changed_at',
  'created_at',
];

const readEvent = (id: string) => row('SELECT status, status_changed_by, status_changed_at, updated_at FROM event_log WHERE id = $1', [id]);

async function listEvents(company: TestCompany, query = '') {
  const res = await get(`/api/v1/events/?page_size=500${query}`, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body as { count: number; next: string | null; results: Array<Record<string, any>> };
}

describe('GET /api/v1/events/', () => {
  let company: TestCompany;
  let widget: TestProduct;
  let gadget: TestProduct;
  let ids: Record<string, string>;
  before(async () => {
    company = await buildCompany();
    widget = await buildProduct(company);
    gadget = await buildProduct(company, { profile: 'BATCH' });
    const t = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);
    ids = {
      oldResolved: (await buildEvent(company, widget, { status: 'RESOLVED', createdAt: t(300), severity: 'INFO' })).id,
      ignored: (await buildEvent(company, widget, { status: 'IGNORED', createdAt: t(200) })).id,
      dated: (await buildEvent(company, gadget, { triggerType: 'DATE_OFFSET', severity: 'CRITICAL', createdAt: t(100), message: 'Expiring batch: B1' })).id,
      newest: (await buildEvent(company, widget, { createdAt: t(1) })).id,
    };
  });

  it('lists the company’s events newest first, each in the event shape', async () => {
    const list = await listEvents(company);
    expect(list.count).to.equal(4);
    expect(list.results.map((e) => e.id)).to.deep.equal([ids.newest, ids.dated, ids.ignored, ids.oldResolved]);
    for (const event of list.results) expect(event).to.have.all.keys(...EVENT_KEYS);
    const newest = list.results[0];
    expect(newest).to.deep.include({
      rule_source: 'rule',
      product_id: widget.id,
      batch_id: null,
      trigger_type: 'THRESHOLD',
      severity: 'WARNING',
      status: 'OPEN',
      allowed_transitions: ['RESOLVED', 'IGNORED'],
      status_changed_by: null,
      status_changed_at: null,
      details: { quantity: 2, min: 5 },
    });
    expect(newest.message).to.match(/^Low stock/);
    expect(new Date(newest.created_at).toISOString()).to.equal(newest.created_at);
    expect(list.results[2].allowed_transitions).to.deep.equal([]);
  });

  it('filters by status, product_id, trigger_type and severity, alone and together', async () => {
    expect((await listEvents(company, '&status=OPEN')).results.map((e) => e.id)).to.deep.equal([ids.newest, ids.dated]);
    expect((await listEvents(company, '&status=IGNORED')).results.map((e) => e.id)).to.deep.equal([ids.ignored]);
    expect((await listEvents(company, `&product_id=${gadget.id}`)).results.map((e) => e.id)).to.deep.equal([ids.dated]);
    expect((await listEvents(company, '&trigger_type=DATE_OFFSET')).results.map((e) => e.id)).to.deep.equal([ids.dated]);
    expect((await listEvents(company, '&severity=INFO')).results.map((e) => e.id)).to.deep.equal([ids.oldResolved]);
    expect((await listEvents(company, `&status=OPEN&product_id=${widget.id}`)).results.map((e) => e.id)).to.deep.equal([ids.newest]);
  });

  it('filters by rule_id', async () => {
    const ruleId = (await get(`/api/v1/events/${ids.ignored}/`, { token: company.token })).body.rule_id;
    expect((await listEvents(company, `&rule_id=${ruleId}`)).results.map((e) => e.id)).to.deep.equal([ids.ignored]);
    // An id that names no rule is 404, as a path id would be (filter-ownership.test.ts covers 403).
    expectNotFound(await get(`/api/v1/events/?rule_id=${randomUUID()}`, { token: company.token }));
  });

  it('filters by created_after (inclusive) and created_before (exclusive)', async () => {
    const ago = (minutes: number) => encodeURIComponent(new Date(Date.now() - minutes * 60_000).toISOString());
    expect((await listEvents(company, `&created_after=${ago(150)}`)).results.map((e) => e.id)).to.deep.equal([ids.newest, ids.dated]);
    expect((await listEvents(company, `&created_before=${ago(150)}`)).results.map((e) => e.id)).to.deep.equal([ids.ignored, ids.oldResolved]);
    expect((await listEvents(company, `&created_after=${ago(250)}&created_before=${ago(50)}`)).results.map((e) => e.id)).to.deep.equal([
      ids.dated,
      ids.ignored,
    ]);
  });

  it('pages with count, next and previous', async () => {
    const first = await get('/api/v1/events/?page_size=3', { token: company.token });
    expect(first.body.count).to.equal(4);
    expect(first.body.results).to.have.length(3);
    expect(first.body.next).to.match(/page=2/);
    const second = await get('/api/v1/events/?page_size=3&page=2', { token: company.token });
    expect(second.body.results.map((e: { id: string }) => e.id)).to.deep.equal([ids.oldResolved]);
    expect(second.body.previous).to.match(/page=1/);
  });

  it('retrieves one event', async () => {
    const res = await get(`/api/v1/events/${ids.dated}/`, { token: company.token });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.all.keys(...EVENT_KEYS);
    expect(res.body).to.deep.include({ id: ids.dated, product_id: gadget.id, trigger_type: 'DATE_OFFSET', severity: 'CRITICAL', status: 'OPEN' });
  });

  it('answers 400 naming a bad filter, 404 for a product or event that exists nowhere, 400 naming id for a malformed id', async () => {
    expectValidationError(await get('/api/v1/events/?status=CLOSED', { token: company.token }), 'status');
    expectValidationError(await get('/api/v1/events/?severity=LOUD', { token: company.token }), 'severity');
    expectValidationError(await get('/api/v1/events/?created_after=yesterday', { token: company.token }), 'created_after');
    expectValidationError(await get('/api/v1/events/?product_id=42', { token: company.token }), 'product_id');
    expectNotFound(await get(`/api/v1/events/?product_id=${randomUUID()}`, { token: company.token }));
    expectNotFound(await get(`/api/v1/events/${randomUUID()}/`, { token: company.token }));
    expectValidationError(await get('/api/v1/events/nope/', { token: company.token }), 'id');
  });
});

describe('POST /api/v1/events/{id}/resolve/ and ignore/', () => {
  let company: TestCompany;
  let product: TestProduct;
  before(async () => {
    company = await buildCompany();
    product = await buildProduct(company);
  });

  it('resolves an OPEN event (200), recording who and when', async () => {
    const event = await buildEvent(company, product);
    const before = Date.now();
    const res = await post(`/api/v1/events/${event.id}/resolve/`, undefined, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ id: event.id, status: 'RESOLVED', status_changed_by: company.admin.id, allowed_transitions: [] });
    expect(new Date(res.body.status_changed_at).getTime()).to.be.within(before - 1000, Date.now() + 1000);
    const stored = await readEvent(event.id);
    expect(stored.status).to.equal('RESOLVED');
    expect(stored.status_changed_by).to.equal(company.admin.id);
  });

  it('lets a member ignore an OPEN event (200), recording the member', async () => {
    const member = await buildUser(company);
    const event = await buildEvent(company, product);
    const res = await post(`/api/v1/events/${event.id}/ignore/`, {}, { token: member.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ status: 'IGNORED', status_changed_by: member.id });
    expect((await readEvent(event.id)).status).to.equal('IGNORED');
  });

  const FINAL = ['RESOLVED', 'IGNORED'] as const;
  for (const status of FINAL) {
    for (const action of ['resolve', 'ignore'] as const) {
      it(`answers 409 invalid_transition with allowed_transitions [] to ${action} on ${status === 'IGNORED' ? 'an' : 'a'} ${status} event, and changes nothing`, async () => {
        const event = await buildEvent(company, product, { status });
        const before = await readEvent(event.id);
        const res = await post(`/api/v1/events/${event.id}/${action}/`, undefined, { token: company.token });
        expectInvalidTransition(res, []);
        expect(res.body.details.status).to.equal(status);
        expect(await readEvent(event.id)).to.deep.equal(before);
      });
    }
  }

  it('answers 409 to a second resolve of the same event, and keeps the first one’s record', async () => {
    const event = await buildEvent(company, product);
    const first = await post(`/api/v1/events/${event.id}/resolve/`, undefined, { token: company.token });
    expect(first.status).to.equal(200);
    const member = await buildUser(company);
    expectInvalidTransition(await post(`/api/v1/events/${event.id}/resolve/`, undefined, { token: member.token }), []);
    expect((await readEvent(event.id)).status_changed_by).to.equal(company.admin.id);
  });

  it('of a resolve and an ignore sent at once, exactly one wins; the other answers 409 and the winner’s status is stored', async () => {
    for (let round = 0; round < 5; round += 1) {
      const event = await buildEvent(company, product);
      const [resolved, ignored] = await Promise.all([
        post(`/api/v1/events/${event.id}/resolve/`, undefined, { token: company.token }),
        post(`/api/v1/events/${event.id}/ignore/`, undefined, { token: company.token }),
      ]);
      const statuses = [resolved.status, ignored.status].sort();
      expect(statuses, JSON.stringify([resolved.body, ignored.body])).to.deep.equal([200, 409]);
      const winner = resolved.status === 200 ? 'RESOLVED' : 'IGNORED';
      const loser = resolved.status === 200 ? ignored : resolved;
      expectInvalidTransition(loser, []);
      expect(loser.body.details.status).to.equal(winner);
      expect((await readEvent(event.id)).status).to.equal(winner);
    }
  });

  it('of ten resolves sent at once, exactly one wins', async () => {
    const event = await buildEvent(company, product);
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(`/api/v1/events/${event.id}/resolve/`, undefined, { token: company.token })));
    expect(answers.filter((a) => a.status === 200)).to.have.length(1);
    expect(answers.filter((a) => a.status === 409)).to.have.length(9);
  });

  it('answers 404 for an event that exists nowhere, and 400 naming a field sent in the body', async () => {
    expectNotFound(await post(`/api/v1/events/${randomUUID()}/resolve/`, undefined, { token: company.token }));
    expectNotFound(await post(`/api/v1/events/${randomUUID()}/ignore/`, undefined, { token: company.token }));
    const event = await buildEvent(company, product);
    expectValidationError(await post(`/api/v1/events/${event.id}/resolve/`, { status: 'OPEN' }, { token: company.token }), 'status');
    expect((await readEvent(event.id)).status).to.equal('OPEN');
  });
});

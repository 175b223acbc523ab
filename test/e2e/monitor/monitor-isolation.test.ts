/**
 * Company isolation on every monitoring endpoint (docs/api/conventions.md): B naming A's rule (stored or implied by A's
 * product), event, channel, delivery or product — in the path, the query or the body — gets 403 access_denied
 * with nothing of A's record, and A's record does not change; lists show B nothing of A. A channel's secret is
 * readable by no other company and by no member.
 */
import { expect } from 'chai';
import { ApiResponse, del, get, patch, post } from '../../support/api';
import { expectAccessDenied, expectPermissionDenied } from '../../support/assertions';
import { TestCompany, TestProduct, buildCompany, buildProduct, buildUser } from '../../support/builders';
import { count, row } from '../../support/sql';
import { Receiver, startReceiver } from '../../support/receiver';
import { buildChannel, buildEvent } from './helpers';

interface World {
  a: TestCompany;
  b: TestCompany;
  aProduct: TestProduct;
  aRule: { id: string };
  aVirtualRule: { id: string };
  aEvent: { id: string };
  aChannel: { id: string; secret: string };
  aDelivery: { id: string };
}

const readRule = (id: string) => row('SELECT * FROM monitoring_rules WHERE id = $1', [id]);
const readEvent = (id: string) => row('SELECT * FROM event_log WHERE id = $1', [id]);
const readChannel = (id: string) => row('SELECT * FROM notification_channels WHERE id = $1', [id]);
const readDelivery = (id: string) => row('SELECT * FROM notification_deliveries WHERE id = $1', [id]);

describe('company isolation: monitoring rules, events, channels and deliveries', () => {
  let w: World;
  let receiver: Receiver;
  /** What no answer to B may contain. */
  let secrets: string[];

  before(async () => {
    receiver = await startReceiver();
    const a = await buildCompany();
    const b = await buildCompany();
    const aProduct = await buildProduct(a, { engine_config: { engine_type: 'counter', min_stock: 4 } });
    const aRule = (
      await post(
        '/api/v1/monitoring-rules/',
        { product_id: aProduct.id, trigger_type: 'THRESHOLD', condition_config: { max: 50 }, name: 'A secret rule' },
        { token: a.token },
      )
    ).body;
    const rules = await get(`/api/v1/monitoring-rules/?product_id=${aProduct.id}&source=attribute`, { token: a.token });
    const aVirtualRule = rules.body.results[0];
    const aEvent = await buildEvent(a, aProduct, { message: 'Low stock: A-only message' });
    const aChannel = await buildChannel(a, { name: 'A channel', url: receiver.url });
    const sent = await post(`/api/v1/notification-channels/${aChannel.id}/test/`, undefined, { token: a.token });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    w = { a, b, aProduct, aRule, aVirtualRule, aEvent, aChannel, aDelivery: sent.body.delivery };
    secrets = [aProduct.id, aProduct.name, 'A secret rule', 'A-only message', aChannel.secret, 'A channel', receiver.url, a.id];
    receiver.requests.length = 0;
  });
  after(async () => {
    await receiver.close();
  });

  const denied = (res: ApiResponse) => expectAccessDenied(res, secrets);

  it('refuses B’s reads, changes and deletes of A’s stored rule (403), leaving it as it was', async () => {
    const before = await readRule(w.aRule.id);
    denied(await get(`/api/v1/monitoring-rules/${w.aRule.id}/`, { token: w.b.token }));
    denied(await patch(`/api/v1/monitoring-rules/${w.aRule.id}/`, { severity: 'INFO' }, { token: w.b.token }));
    denied(await del(`/api/v1/monitoring-rules/${w.aRule.id}/`, { token: w.b.token }));
    expect(await readRule(w.aRule.id)).to.deep.equal(before);
  });

  it('refuses B’s reads, changes and deletes of a rule implied by A’s product (403, not 409)', async () => {
    denied(await get(`/api/v1/monitoring-rules/${w.aVirtualRule.id}/`, { token: w.b.token }));
    denied(await patch(`/api/v1/monitoring-rules/${w.aVirtualRule.id}/`, { severity: 'INFO' }, { token: w.b.token }));
    denied(await del(`/api/v1/monitoring-rules/${w.aVirtualRule.id}/`, { token: w.b.token }));
  });

  it('refuses a rule on A’s product in B’s body (403) and creates nothing', async () => {
    denied(
      await post('/api/v1/monitoring-rules/', { product_id: w.aProduct.id, trigger_type: 'THRESHOLD', condition_config: { min: 1 } }, { token: w.b.token }),
    );
    // Isolation comes before the CUSTOM and profile checks.
    denied(await post('/api/v1/monitoring-rules/', { product_id: w.aProduct.id, trigger_type: 'CUSTOM' }, { token: w.b.token }));
    denied(
      await post(
        '/api/v1/monitoring-rules/',
        { product_id: w.aProduct.id, trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date', days_offset: 1 } },
        { token: w.b.token },
      ),
    );
    expect(await count('SELECT count(*) FROM monitoring_rules WHERE company_id = $1', [w.b.id])).to.equal(0);
    expect(await count('SELECT count(*) FROM monitoring_rules WHERE product_id = $1', [w.aProduct.id])).to.equal(1);
  });

  it('refuses A’s product as a filter of B’s rule and event lists (403)', async () => {
    denied(await get(`/api/v1/monitoring-rules/?product_id=${w.aProduct.id}`, { token: w.b.token }));
    denied(await get(`/api/v1/events/?product_id=${w.aProduct.id}`, { token: w.b.token }));
  });

  it('refuses B’s reads and moves of A’s event (403), leaving it OPEN', async () => {
    const before = await readEvent(w.aEvent.id);
    denied(await get(`/api/v1/events/${w.aEvent.id}/`, { token: w.b.token }));
    denied(await post(`/api/v1/events/${w.aEvent.id}/resolve/`, undefined, { token: w.b.token }));
    denied(await post(`/api/v1/events/${w.aEvent.id}/ignore/`, undefined, { token: w.b.token }));
    expect(await readEvent(w.aEvent.id)).to.deep.equal(before);
  });

  it('refuses every channel endpoint on A’s channel to B’s admin (403): no secret, no change, nothing sent', async () => {
    const before = await readChannel(w.aChannel.id);
    const base = `/api/v1/notification-channels/${w.aChannel.id}`;
    denied(await get(`${base}/`, { token: w.b.token }));
    denied(await patch(`${base}/`, { url: 'http://93.184.216.34/stolen' }, { token: w.b.token }));
    denied(await del(`${base}/`, { token: w.b.token }));
    denied(await post(`${base}/rotate-secret/`, undefined, { token: w.b.token }));
    denied(await post(`${base}/test/`, undefined, { token: w.b.token }));
    denied(await post(`${base}/resume/`, undefined, { token: w.b.token }));
    expect(await readChannel(w.aChannel.id)).to.deep.equal(before);
    expect(receiver.requests).to.have.length(0);
  });

  it('refuses A’s delivery, and A’s channel or event as delivery filters, to B (403)', async () => {
    const before = await readDelivery(w.aDelivery.id);
    denied(await get(`/api/v1/notification-deliveries/${w.aDelivery.id}/`, { token: w.b.token }));
    denied(await get(`/api/v1/notification-deliveries/?channel_id=${w.aChannel.id}`, { token: w.b.token }));
    denied(await get(`/api/v1/notification-deliveries/?event_id=${w.aEvent.id}`, { token: w.b.token }));
    expect(await readDelivery(w.aDelivery.id)).to.deep.equal(before);
  });

  it('lists nothing of A’s to B: rules, events, channels, deliveries', async () => {
    for (const path of ['/api/v1/monitoring-rules/', '/api/v1/events/', '/api/v1/notification-channels/', '/api/v1/notification-deliveries/']) {
      const res = await get(`${path}?page_size=500`, { token: w.b.token });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(200);
      expect(res.body.count, path).to.equal(0);
      expect(res.body.results, path).to.deep.equal([]);
      for (const secret of secrets) expect(JSON.stringify(res.body)).not.to.include(secret);
    }
    // A's own lists do show them.
    expect((await get('/api/v1/monitoring-rules/', { token: w.a.token })).body.count).to.equal(2);
    expect((await get('/api/v1/events/', { token: w.a.token })).body.count).to.equal(1);
    expect((await get('/api/v1/notification-channels/', { token: w.a.token })).body.count).to.equal(1);
    expect((await get('/api/v1/notification-deliveries/', { token: w.a.token })).body.count).to.equal(1);
  });

  it('shows A’s channel secret to neither B’s member nor A’s member', async () => {
    const bMember = await buildUser(w.b);
    const aMember = await buildUser(w.a);
    for (const token of [bMember.token, aMember.token]) {
      expectPermissionDenied(await get(`/api/v1/notification-channels/${w.aChannel.id}/`, { token }), [w.aChannel.secret]);
      expectPermissionDenied(await get('/api/v1/notification-channels/', { token }), [w.aChannel.secret]);
      expectPermissionDenied(await post(`/api/v1/notification-channels/${w.aChannel.id}/rotate-secret/`, undefined, { token }), [w.aChannel.secret]);
      expectPermissionDenied(await get(`/api/v1/notification-deliveries/${w.aDelivery.id}/`, { token }), [w.aChannel.secret]);
    }
    // B's member may still read rules and events, and sees none of A's.
    denied(await get(`/api/v1/events/${w.aEvent.id}/`, { token: bMember.token }));
    denied(await get(`/api/v1/monitoring-rules/${w.aRule.id}/`, { token: bMember.token }));
  });
});

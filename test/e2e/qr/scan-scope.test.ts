/**
 * Least privilege for scans (docs/api/scanning.md): a key minted by a QR scan reaches what its code points at
 * and nothing else, under the policy the company (or the code) chose. One table lists every widget endpoint
 * with what a scan may and may not reach there, and is run for each policy.
 */
import { expect } from 'chai';
import { ApiResponse, api, del, get, patch, post, put } from '../../support/api';
import { expectErrorShape } from '../../support/assertions';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct, buildUser, configuredCode, generateCode, unique } from '../../support/builders';
import { system } from '../../support/hooks';
import { holdLock } from '../../support/held-lock';
import { sleep } from '../../support/wait';
import { row } from '../../support/sql';

type Policy = 'read' | 'book' | 'staff';
const POLICIES: Policy[] = ['read', 'book', 'staff'];

interface World {
  company: TestCompany;
  /** The scanned code's product, and another product of the company. */
  product: { id: string };
  other: { id: string };
  here: { id: string };
  there: { id: string };
  code: string;
  otherCode: string;
  virgin: string;
}

async function buildWorld(): Promise<World> {
  const company = await buildCompany();
  const [product, other] = [await buildProduct(company), await buildProduct(company)];
  const [here, there] = [await buildLocation(company), await buildLocation(company)];
  await addStock(company, product.id, here.id, 50);
  await addStock(company, other.id, here.id, 50);
  return {
    company,
    product,
    other,
    here,
    there,
    code: await configuredCode(company, product.id),
    otherCode: await configuredCode(company, other.id),
    virgin: await generateCode(company),
  };
}

/** Scans `code` (`/go/<code>/`) and exchanges the token: the scan's key and the exchange's answer. */
async function scanKey(code: string): Promise<{ key: string; body: any }> {
  const scan = await api('GET', `/go/${code}/`);
  expect(scan.status).to.equal(302);
  const token = new URL(scan.headers.get('location')!).searchParams.get('token');
  const res = await post('/api/v1/widget/exchange_token/', { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return { key: res.body.api_key, body: res.body };
}

async function setPolicy(company: TestCompany, policy: Policy) {
  const res = await patch('/api/v1/scan-settings/', { policy }, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

/** Allowed (with the status it answers), or refused with 403 and this code. */
type Outcome = number | 'access_denied' | 'permission_denied' | 'sign_in_required';

interface Case {
  what: string;
  request: (w: World) => [method: string, path: string, body?: Record<string, unknown>];
  outcome: Record<Policy, Outcome>;
  /** More checks of an allowed answer. */
  check?: (res: ApiResponse, w: World) => void;
}

const everywhere = (o: Outcome): Record<Policy, Outcome> => ({ read: o, book: o, staff: o });
/** A booking of the target: seen but not booked under `read`, booked under `book`, `staff` waits for a user. */
const booking: Record<Policy, Outcome> = { read: 'permission_denied', book: 200, staff: 'sign_in_required' };
const ids = (list: Array<{ id: string }>) => list.map((p) => p.id);

/** Every widget endpoint (GET /api/v1/widget/ to work_orders/, the three QR ones), reached and refused. */
const CASES: Case[] = [
  {
    what: 'GET / lists only the target product, in the usual shape',
    request: () => ['GET', '/api/v1/widget/'],
    outcome: everywhere(200),
    check: (res, w) => {
      expect(res.body).to.have.all.keys('company', 'products', 'poly_products');
      expect(res.body.company).to.equal(w.company.name);
      expect(ids(res.body.products)).to.deep.equal([w.product.id]);
    },
  },
  {
    what: 'GET /?location_id= lists only the target product at the location',
    request: (w) => ['GET', `/api/v1/widget/?location_id=${w.here.id}`],
    outcome: everywhere(200),
    check: (res, w) => expect(ids(res.body.products)).to.deep.equal([w.product.id]),
  },
  { what: 'GET /{id}/ of the target product', request: (w) => ['GET', `/api/v1/widget/${w.product.id}/`], outcome: everywhere(200) },
  { what: 'GET /{id}/ of another product', request: (w) => ['GET', `/api/v1/widget/${w.other.id}/`], outcome: everywhere('access_denied') },
  {
    what: 'POST /{id}/transaction/ of the target product',
    request: (w) => ['POST', `/api/v1/widget/${w.product.id}/transaction/`, { operation: 'add', quantity: 1, location_id: w.here.id, reason: 'scan' }],
    outcome: booking,
  },
  {
    what: 'POST /{id}/transaction/ of another product',
    request: (w) => ['POST', `/api/v1/widget/${w.other.id}/transaction/`, { operation: 'add', quantity: 1, location_id: w.here.id, reason: 'scan' }],
    outcome: { read: 'permission_denied', book: 'access_denied', staff: 'access_denied' },
  },
  {
    what: 'POST /move/ of the target product',
    request: (w) => ['POST', '/api/v1/widget/move/', { product_id: w.product.id, location_id: w.here.id, quantity: -1, reason: 'scan' }],
    outcome: booking,
  },
  {
    what: 'POST /move/ of another product',
    request: (w) => ['POST', '/api/v1/widget/move/', { product_id: w.other.id, location_id: w.here.id, quantity: -1, reason: 'scan' }],
    outcome: { read: 'permission_denied', book: 'access_denied', staff: 'access_denied' },
  },
  {
    what: 'POST /transfer/ of the target product',
    request: (w) => [
      'POST',
      '/api/v1/widget/transfer/',
      { product_id: w.product.id, from_location_id: w.here.id, to_location_id: w.there.id, quantity: 1, reason: 'scan' },
    ],
    outcome: booking,
  },
  {
    what: 'POST /transfer/ of another product',
    request: (w) => [
      'POST',
      '/api/v1/widget/transfer/',
      { product_id: w.other.id, from_location_id: w.here.id, to_location_id: w.there.id, quantity: 1, reason: 'scan' },
    ],
    outcome: { read: 'permission_denied', book: 'access_denied', staff: 'access_denied' },
  },
  { what: 'GET /items/ of the target product', request: (w) => ['GET', `/api/v1/widget/items/?product_id=${w.product.id}`], outcome: everywhere(200) },
  { what: 'GET /items/ of another product', request: (w) => ['GET', `/api/v1/widget/items/?product_id=${w.other.id}`], outcome: everywhere('access_denied') },
  { what: 'GET /batches/ of the target product', request: (w) => ['GET', `/api/v1/widget/batches/?product_id=${w.product.id}`], outcome: everywhere(200) },
  {
    what: 'GET /batches/ of another product',
    request: (w) => ['GET', `/api/v1/widget/batches/?product_id=${w.other.id}`],
    outcome: everywhere('access_denied'),
  },
  {
    what: 'GET /locations/ (needed to book)',
    request: () => ['GET', '/api/v1/widget/locations/'],
    outcome: everywhere(200),
    check: (res, w) => expect(ids(res.body.locations)).to.include.members([w.here.id, w.there.id]),
  },
  {
    what: 'POST /create_location/',
    request: () => ['POST', '/api/v1/widget/create_location/', { name: unique('Shelf'), type: 'SHELF' }],
    outcome: { read: 'permission_denied', book: 'access_denied', staff: 'access_denied' },
  },
  {
    what: 'GET /location_inventory/ shows only the target product there',
    request: (w) => ['GET', `/api/v1/widget/location_inventory/?location_id=${w.here.id}`],
    outcome: everywhere(200),
    check: (res, w) => expect(ids(res.body.products)).to.deep.equal([w.product.id]),
  },
  {
    what: 'GET /work_orders/ shows none for a product scan',
    request: () => ['GET', '/api/v1/widget/work_orders/'],
    outcome: everywhere(200),
    check: (res) => expect(res.body.work_orders).to.deep.equal([]),
  },
  { what: 'GET /qr_info/ of the scanned code', request: (w) => ['GET', `/api/v1/widget/qr_info/?code=${w.code}`], outcome: everywhere(200) },
  { what: 'GET /qr_info/ of another code', request: (w) => ['GET', `/api/v1/widget/qr_info/?code=${w.otherCode}`], outcome: everywhere('access_denied') },
  {
    what: 'POST /configure_qr/ of a VIRGIN code',
    request: (w) => ['POST', '/api/v1/widget/configure_qr/', { code: w.virgin, target_type: 'PRODUCT', target_id: w.product.id }],
    outcome: { read: 'permission_denied', book: 'access_denied', staff: 'access_denied' },
  },
  {
    what: 'POST /lock_qr/ of the scanned code',
    request: (w) => ['POST', '/api/v1/widget/lock_qr/', { code: w.code }],
    outcome: { read: 'permission_denied', book: 'access_denied', staff: 'access_denied' },
  },
  // Last, since the tests below name the cases above by their index.
  {
    what: 'GET /{id}/history/ of the target product',
    request: (w) => ['GET', `/api/v1/widget/${w.product.id}/history/`],
    outcome: everywhere(200),
    check: (res, w) => expect(res.body.product_id).to.equal(w.product.id),
  },
  { what: 'GET /{id}/history/ of another product', request: (w) => ['GET', `/api/v1/widget/${w.other.id}/history/`], outcome: everywhere('access_denied') },
];

async function send(key: string, [method, path, body]: ReturnType<Case['request']>) {
  return api(method, path, { apiKey: key, body });
}

describe('scan keys reach only what their code points at (docs/api/scanning.md)', () => {
  for (const policy of POLICIES) {
    describe(`under the ${policy} policy`, () => {
      let w: World;
      let key: string;
      before(async () => {
        w = await buildWorld();
        await setPolicy(w.company, policy);
        const scanned = await scanKey(w.code);
        key = scanned.key;
        expect(scanned.body.scan).to.deep.equal({ policy, signed_in_user: null });
      });

      for (const c of CASES) {
        const outcome = c.outcome[policy];
        it(`${c.what}: ${typeof outcome === 'number' ? `answers ${outcome}` : `403 ${outcome}`}`, async () => {
          const stockBefore = await row('SELECT count(*)::int AS n FROM stock_movements WHERE company_id = $1', [w.company.id]);
          const res = await send(key, c.request(w));
          if (typeof outcome === 'number') {
            expect(res.status, JSON.stringify(res.body)).to.equal(outcome);
            c.check?.(res, w);
          } else {
            expectErrorShape(res, 403, outcome);
            expect(JSON.stringify(res.body)).not.to.include(w.other.id);
            // A refused request changes nothing.
            expect(await row('SELECT count(*)::int AS n FROM stock_movements WHERE company_id = $1', [w.company.id])).to.deep.equal(stockBefore);
          }
        });
      }
    });
  }

  it('the company widget key still reaches everything (the table is about scans only)', async () => {
    const w = await buildWorld();
    for (const c of CASES.filter((c) => !c.what.includes('lock_qr'))) {
      const res = await send(w.company.apiKey, c.request(w));
      expect(res.status, `${c.what}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
    }
  });

  it("a code's own policy overrides the company's: a read-only code under a book company cannot book", async () => {
    const w = await buildWorld();
    const set = await put(`/api/v1/qr-codes/${w.code}/scan_policy/`, { scan_policy: 'read' }, { token: w.company.token });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body.scan_policy).to.equal('read');
    const { key, body } = await scanKey(w.code);
    expect(body.scan.policy).to.equal('read');
    expectErrorShape(await send(key, CASES[4].request(w)), 403, 'permission_denied');
    const bookable = await scanKey(w.otherCode);
    expect(bookable.body.scan.policy).to.equal('book');
    const bad = await put(`/api/v1/qr-codes/${w.code}/scan_policy/`, { scan_policy: 'everything' }, { token: w.company.token });
    expectErrorShape(bad, 400, 'validation_error');
    expect(bad.body.details).to.have.property('scan_policy');
  });

  it('a work order scan reaches that work order and its product only', async () => {
    const w = await buildWorld();
    const order = await post('/api/v1/work-orders/', { number: unique('WO'), title: 'Assemble', product_id: w.product.id }, { token: w.company.token });
    const otherOrder = await post('/api/v1/work-orders/', { number: unique('WO'), title: 'Other', product_id: w.other.id }, { token: w.company.token });
    expect([order.status, otherOrder.status]).to.deep.equal([201, 201]);
    const code = await generateCode(w.company);
    expect(
      (await post('/api/v1/widget/configure_qr/', { code, target_type: 'WORK_ORDER', target_id: order.body.id }, { apiKey: w.company.apiKey })).status,
    ).to.equal(200);
    const { key } = await scanKey(code);
    const orders = await get('/api/v1/widget/work_orders/', { apiKey: key });
    expect(ids(orders.body.work_orders)).to.deep.equal([order.body.id]);
    expect(ids((await get('/api/v1/widget/', { apiKey: key })).body.products)).to.deep.equal([w.product.id]);
    expect((await send(key, CASES[4].request(w))).status).to.equal(200);
    expectErrorShape(await send(key, CASES[5].request(w)), 403, 'access_denied');
  });
});

describe('signing in inside a scanned widget (staff)', () => {
  it('a staff scan books only once a user of the company signed in, and the movement names that user and the code', async () => {
    const w = await buildWorld();
    await setPolicy(w.company, 'staff');
    const member = await buildUser(w.company);
    const { key } = await scanKey(w.code);
    expectErrorShape(await send(key, CASES[4].request(w)), 403, 'sign_in_required');

    const wrong = await post('/api/v1/widget/sign_in/', { username: member.username, password: 'not-the-password' }, { apiKey: key });
    expectErrorShape(wrong, 401, 'authentication_failed');
    const signedIn = await post('/api/v1/widget/sign_in/', { username: member.username, password: member.password }, { apiKey: key });
    expect(signedIn.status, JSON.stringify(signedIn.body)).to.equal(200);
    expect(signedIn.body.scan).to.deep.equal({ policy: 'staff', signed_in_user: { id: member.id, username: member.username } });
    const staffKey: string = signedIn.body.api_key;
    // The anonymous key is replaced: it stops at once.
    expect((await get('/api/v1/widget/', { apiKey: key })).status).to.equal(401);

    const booked = await send(staffKey, CASES[4].request(w));
    expect(booked.status, JSON.stringify(booked.body)).to.equal(200);
    // Still only the target.
    expectErrorShape(await send(staffKey, CASES[5].request(w)), 403, 'access_denied');
    expectErrorShape(await send(staffKey, CASES[15].request(w)), 403, 'access_denied');

    const ledger = await get(`/api/v1/movements/?product_id=${w.product.id}`, { token: w.company.token });
    expect(ledger.status).to.equal(200);
    const entry = ledger.body.results.find((m: { id: string }) => m.id === booked.body.movements[0].id);
    expect(entry.actor).to.deep.include({ kind: 'api_key', name: `QR code ${w.code}`, qr_code: w.code });
    expect(entry.actor.user).to.deep.equal({ id: member.id, username: member.username, email: null });

    // A deactivated user's scan session ends at once.
    expect((await del(`/api/v1/users/${member.id}/`, { token: w.company.token })).status).to.equal(204);
    expect((await get('/api/v1/widget/', { apiKey: staffKey })).status).to.equal(401);
  });

  it('a viewer who signs in inside a scan may look but not book: the scan keeps to what the role allows', async () => {
    const w = await buildWorld();
    await setPolicy(w.company, 'staff');
    const viewer = await buildUser(w.company, { role: 'viewer' });
    const { key } = await scanKey(w.code);
    const signedIn = await post('/api/v1/widget/sign_in/', { username: viewer.username, password: viewer.password }, { apiKey: key });
    expect(signedIn.status, JSON.stringify(signedIn.body)).to.equal(200);
    const viewerKey: string = signedIn.body.api_key;
    expect((await get('/api/v1/widget/', { apiKey: viewerKey })).status).to.equal(200);
    const before = await get(`/api/v1/movements/?product_id=${w.product.id}`, { token: w.company.token });
    expectErrorShape(await send(viewerKey, CASES[4].request(w)), 403, 'permission_denied');
    const after = await get(`/api/v1/movements/?product_id=${w.product.id}`, { token: w.company.token });
    expect(after.body.count, 'nothing booked').to.equal(before.body.count);
  });

  for (const [change, body] of [
    ['turned viewer', { role: 'viewer' }],
    ['given a new password', { password: 'a brand new pass phrase 7' }],
  ] as const) {
    it(`ends a member's signed-in scan once they are ${change}, as it ends their tokens (401), and nothing more is booked`, async () => {
      const w = await buildWorld();
      await setPolicy(w.company, 'staff');
      const member = await buildUser(w.company);
      const { key } = await scanKey(w.code);
      const signedIn = await post('/api/v1/widget/sign_in/', { username: member.username, password: member.password }, { apiKey: key });
      expect(signedIn.status, JSON.stringify(signedIn.body)).to.equal(200);
      const staffKey: string = signedIn.body.api_key;
      expect((await send(staffKey, CASES[4].request(w))).status).to.equal(200);

      expect((await patch(`/api/v1/users/${member.id}/`, body, { token: w.company.token })).status).to.equal(200);
      const before = await get(`/api/v1/movements/?product_id=${w.product.id}`, { token: w.company.token });
      expectErrorShape(await send(staffKey, CASES[4].request(w)), 401, 'authentication_failed');
      expectErrorShape(await get('/api/v1/widget/', { apiKey: staffKey }), 401, 'authentication_failed');
      const after = await get(`/api/v1/movements/?product_id=${w.product.id}`, { token: w.company.token });
      expect(after.body.count, 'nothing booked').to.equal(before.body.count);
      // The admin's list of scan sessions says so too.
      const open = await get('/api/v1/scan-sessions/', { token: w.company.token });
      const all = await get('/api/v1/scan-sessions/?include_ended=true', { token: w.company.token });
      const ended = all.body.results.filter((s: { signed_in_user: { id: string } | null }) => s.signed_in_user?.id === member.id);
      expect(ended.map((s: { active: boolean }) => s.active)).to.deep.equal([false]);
      expect(open.body.results.filter((s: { signed_in_user: { id: string } | null }) => s.signed_in_user?.id === member.id)).to.deep.equal([]);
    });
  }

  it("a user of another company cannot sign in to a company's scan, and the company's own keys cannot sign in at all", async () => {
    const w = await buildWorld();
    const stranger = await buildCompany();
    const { key } = await scanKey(w.code);
    const foreign = await post('/api/v1/widget/sign_in/', { username: stranger.admin.username, password: stranger.admin.password }, { apiKey: key });
    expectErrorShape(foreign, 401, 'authentication_failed');
    const widgetKey = await post(
      '/api/v1/widget/sign_in/',
      { username: w.company.admin.username, password: w.company.admin.password },
      { apiKey: w.company.apiKey },
    );
    expectErrorShape(widgetKey, 403, 'access_denied');
    const missing = await post('/api/v1/widget/sign_in/', { username: w.company.admin.username }, { apiKey: key });
    expectErrorShape(missing, 400, 'validation_error');
    expect(missing.body.details).to.have.property('password');
    expect((await get('/api/v1/widget/', { apiKey: key })).status, 'refused sign-ins leave the scan as it was').to.equal(200);
  });
});

describe('linking a VIRGIN code from a scan', () => {
  for (const policy of POLICIES) {
    it(`under ${policy}: an anonymous scan cannot link its VIRGIN code; once a user signed in it can, and then reaches the target`, async () => {
      const w = await buildWorld();
      await setPolicy(w.company, policy);
      const { key, body } = await scanKey(w.virgin);
      expect(body.qr.status).to.equal('VIRGIN');
      expect((await get('/api/v1/widget/', { apiKey: key })).body.products).to.deep.equal([]);
      expect((await get(`/api/v1/widget/qr_info/?code=${w.virgin}`, { apiKey: key })).status).to.equal(200);
      const anonymous = await post('/api/v1/widget/configure_qr/', { code: w.virgin, target_type: 'PRODUCT', target_id: w.product.id }, { apiKey: key });
      expectErrorShape(anonymous, 403, policy === 'read' ? 'permission_denied' : 'access_denied');
      expect(await row('SELECT status FROM qr_codes WHERE code = $1', [w.virgin])).to.deep.equal({ status: 'VIRGIN' });

      const signedIn = await post('/api/v1/widget/sign_in/', { username: w.company.admin.username, password: w.company.admin.password }, { apiKey: key });
      expect(signedIn.status, JSON.stringify(signedIn.body)).to.equal(200);
      const staffKey = signedIn.body.api_key;
      const otherCode = await post(
        '/api/v1/widget/configure_qr/',
        { code: w.otherCode, target_type: 'PRODUCT', target_id: w.product.id },
        { apiKey: staffKey },
      );
      expectErrorShape(otherCode, 403, 'access_denied');
      const linked = await post('/api/v1/widget/configure_qr/', { code: w.virgin, target_type: 'PRODUCT', target_id: w.product.id }, { apiKey: staffKey });
      expect(linked.status, JSON.stringify(linked.body)).to.equal(200);
      expect(ids((await get('/api/v1/widget/', { apiKey: staffKey })).body.products)).to.deep.equal([w.product.id]);
      expect((await get(`/api/v1/widget/${w.product.id}/`, { apiKey: staffKey })).status).to.equal(200);
      expect((await get(`/api/v1/widget/${w.other.id}/`, { apiKey: staffKey })).status).to.equal(403);
    });
  }
});

describe('scan settings and scan sessions', () => {
  it("the scan key's lifetime is the company's setting (8 hours by default)", async () => {
    const w = await buildWorld();
    const settings = await get('/api/v1/scan-settings/', { token: w.company.token });
    expect(settings.body).to.deep.equal({ policy: 'book', key_lifetime_seconds: 8 * 3600 });
    const changed = await patch('/api/v1/scan-settings/', { key_lifetime_seconds: 600 }, { token: w.company.token });
    expect(changed.body).to.deep.equal({ policy: 'book', key_lifetime_seconds: 600 });
    const { body } = await scanKey(w.code);
    expect(new Date(body.expires_at).getTime() - Date.now()).to.be.closeTo(600_000, 30_000);
  });

  it('refuses bad settings naming the field, and non-admins', async () => {
    const w = await buildWorld();
    for (const [body, field] of [
      [{ policy: 'all' }, 'policy'],
      [{ key_lifetime_seconds: 10 }, 'key_lifetime_seconds'],
      [{ key_lifetime_seconds: '600' }, 'key_lifetime_seconds'],
    ] as const) {
      const res = await patch('/api/v1/scan-settings/', body, { token: w.company.token });
      expectErrorShape(res, 400, 'validation_error');
      expect(res.body.details).to.have.property(field);
    }
    const member = await buildUser(w.company);
    expectErrorShape(await patch('/api/v1/scan-settings/', { policy: 'read' }, { token: member.token }), 403, 'permission_denied');
    expectErrorShape(await get('/api/v1/scan-sessions/', { token: member.token }), 403, 'permission_denied');
    expect((await get('/api/v1/scan-settings/', { token: w.company.token })).body.policy).to.equal('book');
  });

  it('lists scan sessions, and a revoked one answers 401 at once on every gateway (credential cache included)', async () => {
    const w = await buildWorld();
    const second = await system().startGateway();
    try {
      const { key } = await scanKey(w.code);
      // Both gateways have the key in their credential cache.
      expect((await get('/api/v1/widget/', { apiKey: key })).status).to.equal(200);
      expect((await get('/api/v1/widget/', { apiKey: key, baseUrl: second.url })).status).to.equal(200);

      const list = await get('/api/v1/scan-sessions/', { token: w.company.token });
      expect(list.status).to.equal(200);
      expect(list.body.count).to.equal(1);
      const [session] = list.body.results;
      expect(session).to.include({
        code: w.code,
        policy: 'book',
        target_type: 'PRODUCT',
        target_id: w.product.id,
        product_id: w.product.id,
        active: true,
        signed_in_user: null,
      });

      expect((await del(`/api/v1/scan-sessions/${session.id}/`, { token: w.company.token })).status).to.equal(204);
      expectErrorShape(await get('/api/v1/widget/', { apiKey: key }), 401, 'authentication_failed');
      expectErrorShape(await get('/api/v1/widget/', { apiKey: key, baseUrl: second.url }), 401, 'authentication_failed');

      expect((await get('/api/v1/scan-sessions/', { token: w.company.token })).body.count).to.equal(0);
      const ended = await get('/api/v1/scan-sessions/?include_ended=true', { token: w.company.token });
      expect(ended.body.results[0]).to.include({ id: session.id, active: false });
      expectErrorShape(await del(`/api/v1/scan-sessions/${session.id}/`, { token: w.company.token }), 409, 'key_revoked');
      // The widget key is no scan session.
      expectErrorShape(await del(`/api/v1/scan-sessions/${w.company.apiKeyId}/`, { token: w.company.token }), 404, 'not_found');
    } finally {
      await second.close();
    }
  });

  it("isolates companies: B neither lists nor revokes A's scan sessions, and B's scan never reaches A", async () => {
    const a = await buildWorld();
    const b = await buildWorld();
    const { key: aKey } = await scanKey(a.code);
    const { key: bKey } = await scanKey(b.code);
    const aSession = (await get('/api/v1/scan-sessions/', { token: a.company.token })).body.results[0];
    const bList = await get('/api/v1/scan-sessions/?include_ended=true', { token: b.company.token });
    expect(bList.body.results.map((s: { code: string }) => s.code)).to.deep.equal([b.code]);
    expectErrorShape(await del(`/api/v1/scan-sessions/${aSession.id}/`, { token: b.company.token }), 404, 'not_found');
    expect((await get('/api/v1/widget/', { apiKey: aKey })).status).to.equal(200);
    expectErrorShape(await get(`/api/v1/widget/${a.product.id}/`, { apiKey: bKey }), 403, 'access_denied');
    expectErrorShape(await get(`/api/v1/widget/qr_info/?code=${a.code}`, { apiKey: bKey }), 403, 'access_denied');
    const bPolicy = await put(`/api/v1/qr-codes/${a.code}/scan_policy/`, { scan_policy: 'read' }, { token: b.company.token });
    expectErrorShape(bPolicy, 403, 'access_denied');
    expect(await row('SELECT scan_policy FROM qr_codes WHERE code = $1', [a.code])).to.deep.equal({ scan_policy: null });
    expect((await patch('/api/v1/scan-settings/', { policy: 'read' }, { token: b.company.token })).status).to.equal(200);
    expect((await get('/api/v1/scan-settings/', { token: a.company.token })).body.policy).to.equal('book');
  });
});

describe('changes of a user or of the scan settings hold no lock that a sign-in or a booking needs', () => {
  /**
   * Each change is held open by the test (the audit log table share-locked: it waits there to write its entry,
   * with its row locks taken). The lock a change of a user or of the company takes is NO KEY UPDATE, which the
   * references of a new key or a new movement (key-share locks) do not wait for. With FOR UPDATE they waited,
   * and a third request queued on the same row made a deadlock of it (found by hammering: one 500 in a few
   * hundred requests). A request that waited for the change would answer only once the test lets go, so one
   * not answered within 5 s counts as waiting (a count of waiting sessions would also see the brief waits
   * of the gateway's usage flush).
   */
  async function whileChangeWaits(change: () => Promise<ApiResponse>, meanwhile: () => Promise<ApiResponse>) {
    const lock = await holdLock('LOCK TABLE audit_log IN SHARE MODE', []);
    let changing: Promise<ApiResponse> | undefined;
    try {
      changing = change();
      await lock.waitForWaiters(1);
      const during = await Promise.race([meanwhile(), sleep(5000).then(() => undefined)]);
      return { during, changing };
    } finally {
      await lock.release();
      await changing;
    }
  }

  it('a user signs in to a scan while a change of that user is under way', async () => {
    const w = await buildWorld();
    await setPolicy(w.company, 'staff');
    const member = await buildUser(w.company);
    const { key } = await scanKey(w.code);
    const { during, changing } = await whileChangeWaits(
      () => patch(`/api/v1/users/${member.id}/`, { email: 'new@example.com' }, { token: w.company.token }),
      () => post('/api/v1/widget/sign_in/', { username: member.username, password: member.password }, { apiKey: key }),
    );
    expect(during?.status, 'the sign-in was answered while the change waited').to.equal(200);
    expect((await changing).status).to.equal(200);
  });

  it('a booking goes through while a change of the scan settings is under way', async () => {
    const w = await buildWorld();
    const { during, changing } = await whileChangeWaits(
      () => patch('/api/v1/scan-settings/', { policy: 'staff' }, { token: w.company.token }),
      () => send(w.company.apiKey, CASES[4].request(w)),
    );
    expect(during?.status, 'the booking was answered while the change waited').to.equal(200);
    expect((await changing).status).to.equal(200);
  });
});

describe('who booked: the ledger API names users, keys and scans', () => {
  it('names the user, the API key, and the scanned code (with the user who signed in)', async () => {
    const w = await buildWorld();
    const member = await buildUser(w.company);
    const core = await post(
      '/api/v1/movements/',
      { product_id: w.product.id, from_location_id: w.here.id, to_location_id: w.there.id, quantity: 1, reason: 'by hand' },
      { token: member.token },
    );
    expect(core.status, JSON.stringify(core.body)).to.equal(201);
    const byKey = await send(w.company.apiKey, CASES[4].request(w));
    const { key } = await scanKey(w.code);
    const byScan = await send(key, CASES[4].request(w));
    const signedIn = await post('/api/v1/widget/sign_in/', { username: w.company.admin.username, password: w.company.admin.password }, { apiKey: key });
    const byStaff = await send(signedIn.body.api_key, CASES[4].request(w));
    expect([byKey.status, byScan.status, byStaff.status]).to.deep.equal([200, 200, 200]);

    const ledger = await get(`/api/v1/movements/?product_id=${w.product.id}`, { token: w.company.token });
    const actorOf = (id: string) => ledger.body.results.find((m: { id: string }) => m.id === id).actor;
    const widgetKeyName = (await get(`/api/v1/api-keys/${w.company.apiKeyId}/`, { token: w.company.token })).body.name;
    expect(actorOf(core.body.movements[0].id)).to.deep.equal({
      kind: 'user',
      id: member.id,
      name: member.username,
      email: null,
      qr_code: null,
      user: { id: member.id, username: member.username, email: null },
    });
    expect(actorOf(byKey.body.movements[0].id)).to.deep.include({
      kind: 'api_key',
      id: w.company.apiKeyId,
      name: `API key ${widgetKeyName}`,
      qr_code: null,
      user: null,
    });
    expect(actorOf(byScan.body.movements[0].id)).to.deep.include({ kind: 'api_key', name: `QR code ${w.code}`, qr_code: w.code, user: null });
    expect(actorOf(byStaff.body.movements[0].id)).to.deep.include({ name: `QR code ${w.code}`, qr_code: w.code });
    expect(actorOf(byStaff.body.movements[0].id).user).to.deep.include({ id: w.company.admin.id, username: w.company.admin.username });
  });
});

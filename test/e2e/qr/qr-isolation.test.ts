/**
 * Company isolation of QR codes: another company's code on the widget endpoints (qr_info, configure_qr,
 * lock_qr) and on the dashboard (GET /api/v1/qr-codes/{code}/) answers 403 access_denied ("Access denied.",
 * nothing of the other company in the answer) and changes nothing; a target of another company is refused
 * the same way; lists only ever show the caller's codes; and a key minted by a scan of company A's code
 * reads only company A's data.
 */
import { expect } from 'chai';
import { api, get, post } from '../../support/api';
import { expectAccessDenied } from '../../support/assertions';
import { TestCompany, buildCompany, buildLocation, buildProduct, generateCodes, unique } from '../../support/builders';
import { codesOf, readCode } from '../../support/qr-codes';
import { row } from '../../support/sql';

interface World {
  company: TestCompany;
  product: { id: string; sku: string; name: string };
  item: string;
  workOrder: string;
  virgin: string;
  configured: string;
  locked: string;
}

/** A company with a product, a serialized item, a work order and codes in each state. */
async function buildWorld(): Promise<World> {
  const company = await buildCompany();
  const product = await buildProduct(company);
  const serialized = await buildProduct(company, { profile: 'SERIALIZED' });
  const location = await buildLocation(company);
  const item = await post('/api/v1/items/', { product_id: serialized.id, location_id: location.id, serial_number: unique('SN') }, { token: company.token });
  expect(item.status, JSON.stringify(item.body)).to.equal(201);
  const workOrder = await post('/api/v1/work-orders/', { number: unique('WO'), title: 'Build', product_id: product.id }, { token: company.token });
  expect(workOrder.status, JSON.stringify(workOrder.body)).to.equal(201);
  const [virgin, configured, locked] = await generateCodes(company, 3);
  for (const code of [configured, locked]) {
    const res = await post('/api/v1/widget/configure_qr/', { code, target_type: 'PRODUCT', target_id: product.id }, { apiKey: company.apiKey });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }
  expect((await post('/api/v1/widget/lock_qr/', { code: locked }, { apiKey: company.apiKey })).status).to.equal(200);
  return { company, product, item: item.body.id, workOrder: workOrder.body.id, virgin, configured, locked };
}

/** What company B's answers must never reveal to company A. */
const secretsOf = (w: World) => [w.company.id, w.company.name, w.product.id, w.product.sku, w.product.name, w.item, w.workOrder, w.company.admin.username];

async function scanKey(code: string): Promise<string> {
  const scan = await api('GET', `/go/${code}/`);
  expect(scan.status).to.equal(302);
  const token = new URL(scan.headers.get('location')!).searchParams.get('token');
  const res = await post('/api/v1/widget/exchange_token/', { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.api_key;
}

describe("QR isolation: widget endpoints on another company's codes", () => {
  let a: World;
  let b: World;
  before(async () => {
    a = await buildWorld();
    b = await buildWorld();
  });

  for (const state of ['virgin', 'configured', 'locked'] as const) {
    it(`answers 403 "Access denied." on qr_info of another company's ${state} code, revealing nothing of it`, async () => {
      const res = await get(`/api/v1/widget/qr_info/?code=${b[state]}`, { apiKey: a.company.apiKey });
      expectAccessDenied(res, [...secretsOf(b), b[state]]);
    });
  }

  it("answers 403 on configure_qr of another company's VIRGIN code (with my own product), and it stays VIRGIN", async () => {
    const before = await readCode(b.virgin);
    const res = await post('/api/v1/widget/configure_qr/', { code: b.virgin, target_type: 'PRODUCT', target_id: a.product.id }, { apiKey: a.company.apiKey });
    expectAccessDenied(res, secretsOf(b));
    expect(await readCode(b.virgin)).to.deep.equal(before);
    expect(before).to.include({ status: 'VIRGIN', target_id: null });
  });

  it("answers 403 on configure_qr of another company's VIRGIN code with that company's own product, and it stays VIRGIN", async () => {
    const before = await readCode(b.virgin);
    const res = await post('/api/v1/widget/configure_qr/', { code: b.virgin, target_type: 'PRODUCT', target_id: b.product.id }, { apiKey: a.company.apiKey });
    expectAccessDenied(res, secretsOf(b));
    expect(await readCode(b.virgin)).to.deep.equal(before);
  });

  it("answers 403 (not 409) on configure_qr of another company's CONFIGURED and LOCKED codes: the state is not revealed", async () => {
    for (const code of [b.configured, b.locked]) {
      const before = await readCode(code);
      const res = await post('/api/v1/widget/configure_qr/', { code, target_type: 'PRODUCT', target_id: a.product.id }, { apiKey: a.company.apiKey });
      expectAccessDenied(res, secretsOf(b));
      expect(res.body).not.to.have.property('allowed_transitions');
      expect(await readCode(code)).to.deep.equal(before);
    }
  });

  it("answers 403 on lock_qr of another company's CONFIGURED code, and it stays CONFIGURED", async () => {
    const before = await readCode(b.configured);
    const res = await post('/api/v1/widget/lock_qr/', { code: b.configured }, { apiKey: a.company.apiKey });
    expectAccessDenied(res, secretsOf(b));
    expect(await readCode(b.configured)).to.deep.equal(before);
    expect(before).to.include({ status: 'CONFIGURED', locked_at: null });
  });

  it("answers 403 (not 409) on lock_qr of another company's VIRGIN and LOCKED codes", async () => {
    for (const code of [b.virgin, b.locked]) {
      const before = await readCode(code);
      const res = await post('/api/v1/widget/lock_qr/', { code }, { apiKey: a.company.apiKey });
      expectAccessDenied(res, secretsOf(b));
      expect(res.body).not.to.have.property('allowed_transitions');
      expect(await readCode(code)).to.deep.equal(before);
    }
  });

  const foreignTargets: Array<[string, 'PRODUCT' | 'ITEM' | 'WORK_ORDER', (w: World) => string]> = [
    ['product', 'PRODUCT', (w) => w.product.id],
    ['item', 'ITEM', (w) => w.item],
    ['work order', 'WORK_ORDER', (w) => w.workOrder],
  ];
  for (const [what, type, idOf] of foreignTargets) {
    it(`answers 403 on configuring my own code with another company's ${what}, and my code stays VIRGIN`, async () => {
      const [code] = await generateCodes(a.company, 1);
      const before = await readCode(code);
      const res = await post('/api/v1/widget/configure_qr/', { code, target_type: type, target_id: idOf(b) }, { apiKey: a.company.apiKey });
      expectAccessDenied(res, secretsOf(b));
      expect(await readCode(code)).to.deep.equal(before);
      expect(before).to.include({ company_id: a.company.id, status: 'VIRGIN', target_type: null, target_id: null, product_model_id: null });
      // The same code still configures with a target of my own.
      const ok = await post('/api/v1/widget/configure_qr/', { code, target_type: type, target_id: idOf(a) }, { apiKey: a.company.apiKey });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    });
  }

  it("answers 403 on the dashboard's GET /api/v1/qr-codes/{code}/ for another company's code, and 200 for my own", async () => {
    for (const code of [b.virgin, b.configured, b.locked]) {
      expectAccessDenied(await get(`/api/v1/qr-codes/${code}/`, { token: a.company.token }), secretsOf(b));
    }
    const mine = await get(`/api/v1/qr-codes/${a.configured}/`, { token: a.company.token });
    expect(mine.status).to.equal(200);
    expect(mine.body).to.include({ code: a.configured, status: 'CONFIGURED', target_id: a.product.id });
  });
});

describe("QR isolation: lists only show the caller's codes", () => {
  it("lists exactly my codes (all pages, every filter), never another company's, and a filter on another company's target is 403 (ids in filters are checked like path ids)", async () => {
    const a = await buildWorld();
    const b = await buildWorld();
    await generateCodes(b.company, 5);
    const mine = await codesOf(a.company);
    const theirs = new Set((await get('/api/v1/qr-codes/?page_size=500', { token: b.company.token })).body.results.map((r: { code: string }) => r.code));
    expect(theirs.size).to.equal(8);

    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await get(`/api/v1/qr-codes/?page=${page}&page_size=1`, { token: a.company.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.count).to.equal(mine);
      seen.push(...res.body.results.map((r: { code: string }) => r.code));
    }
    expect(seen).to.have.members([a.virgin, a.configured, a.locked]);

    const filters = ['status=VIRGIN', 'status=CONFIGURED', 'status=LOCKED', 'target_type=PRODUCT', `target_id=${a.product.id}`, 'page_size=500'];
    for (const filter of filters) {
      const res = await get(`/api/v1/qr-codes/?${filter}`, { token: a.company.token });
      expect(res.status, filter).to.equal(200);
      for (const r of res.body.results) expect(theirs.has(r.code), `${filter}: ${r.code}`).to.equal(false);
      expect(res.body.results.length, filter).to.be.above(0);
    }
    for (const filter of [`target_id=${b.product.id}`, `target_id=${b.product.id}&target_type=PRODUCT`, `target_id=${b.item}`]) {
      expectAccessDenied(await get(`/api/v1/qr-codes/?${filter}`, { token: a.company.token }), [b.product.id, b.item]);
    }
  });
});

describe('QR isolation: a key minted by a scan reads only its own company', () => {
  let a: World;
  let b: World;
  let key: string;
  before(async () => {
    a = await buildWorld();
    b = await buildWorld();
    key = await scanKey(a.configured);
  });

  it("lists only company A's products in the widget", async () => {
    const res = await get('/api/v1/widget/', { apiKey: key });
    expect(res.status).to.equal(200);
    const ids = res.body.products.map((p: { id: string }) => p.id);
    expect(ids).to.include(a.product.id);
    expect(ids).not.to.include(b.product.id);
    expect(JSON.stringify(res.body)).not.to.include(b.company.name);
  });

  it("answers 403 on company B's product, its items, and its codes", async () => {
    expectAccessDenied(await get(`/api/v1/widget/${b.product.id}/`, { apiKey: key }), secretsOf(b));
    expectAccessDenied(await get(`/api/v1/widget/items/?product_id=${b.product.id}`, { apiKey: key }), secretsOf(b));
    expectAccessDenied(await get(`/api/v1/widget/qr_info/?code=${b.configured}`, { apiKey: key }), secretsOf(b));
    const before = await readCode(b.virgin);
    expectAccessDenied(
      await post('/api/v1/widget/configure_qr/', { code: b.virgin, target_type: 'PRODUCT', target_id: a.product.id }, { apiKey: key }),
      secretsOf(b),
    );
    expectAccessDenied(await post('/api/v1/widget/lock_qr/', { code: b.configured }, { apiKey: key }), secretsOf(b));
    expect(await readCode(b.virgin)).to.deep.equal(before);
  });

  it("reads company A's own code and product", async () => {
    const info = await get(`/api/v1/widget/qr_info/?code=${a.configured}`, { apiKey: key });
    expect(info.status).to.equal(200);
    expect(info.body).to.include({ code: a.configured, status: 'CONFIGURED', target_id: a.product.id });
    expect((await get(`/api/v1/widget/${a.product.id}/`, { apiKey: key })).status).to.equal(200);
  });

  it("mints keys of the code's own company: a scan of B's code gives a key that sees B, not A", async () => {
    const bKey = await scanKey(b.virgin);
    const stored = await row('SELECT company_id, parent_key_id FROM api_keys WHERE qr_code = $1', [b.virgin]);
    expect(stored).to.deep.equal({ company_id: b.company.id, parent_key_id: b.company.apiKeyId });
    // A VIRGIN code points at nothing yet: its scan lists no product (docs/api/scanning.md).
    expect((await get('/api/v1/widget/', { apiKey: bKey })).body.products).to.deep.equal([]);
    const bConfiguredKey = await scanKey(b.configured);
    const ids = (await get('/api/v1/widget/', { apiKey: bConfiguredKey })).body.products.map((p: { id: string }) => p.id);
    expect(ids).to.deep.equal([b.product.id]);
    expectAccessDenied(await get(`/api/v1/widget/${a.product.id}/`, { apiKey: bConfiguredKey }), secretsOf(a));
    expectAccessDenied(await get(`/api/v1/widget/qr_info/?code=${a.virgin}`, { apiKey: bKey }), secretsOf(a));
  });
});

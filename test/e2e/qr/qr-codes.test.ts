/**
 * The dashboard's QR codes (`/api/v1/qr-codes/`, bearer): generating batches of VIRGIN codes (1 to 1000;
 * 12 characters without the look-alikes 0/O and 1/l/I, unique, each with the URL its label encodes), the list with its filters (status,
 * target_type, target_id) and pagination, and retrieving one code.
 */
import { expect } from 'chai';
import { api, get, post } from '../../support/api';
import { expectErrorShape, expectNotFound } from '../../support/assertions';
import { TestCompany, buildCompany, buildLocation, buildProduct, unique } from '../../support/builders';
import { codesOf } from '../../support/qr-codes';
import { query } from '../../support/sql';

const CODE_KEYS = [
  'id',
  'code',
  'status',
  'target_type',
  'target_id',
  'product_model_id',
  'allowed_transitions',
  'url',
  'configured_at',
  'locked_at',
  'created_at',
];
/** Letters and digits without the look-alikes 0, O, 1, l and I (docs/api/barcodes-and-camera.md). */
const TYPABLE = /^[A-HJ-NP-Za-km-z2-9]{12}$/;
const TYPABLE_ALPHABET_SIZE = 57;
const scanUrl = (code: string) => `http://localhost:8000/go/${code}/`;

async function generate(company: TestCompany, n: number): Promise<any[]> {
  const res = await post('/api/v1/qr-codes/', { count: n }, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.results;
}

function expectVirgin(c: any) {
  expect(c).to.have.all.keys(...CODE_KEYS);
  expect(c.code).to.match(TYPABLE);
  expect(c).to.include({
    status: 'VIRGIN',
    target_type: null,
    target_id: null,
    product_model_id: null,
    configured_at: null,
    locked_at: null,
    url: scanUrl(c.code),
  });
  expect(c.allowed_transitions).to.deep.equal(['CONFIGURED']);
  expect(c.id).to.match(/^[0-9a-f-]{36}$/);
  expect(new Date(c.created_at).toISOString()).to.equal(c.created_at);
}

describe('QR codes: generating batches on the dashboard', () => {
  it('generates 1 VIRGIN code: 201 {count, results}, 12 typable characters, its scan URL, stored for my company', async () => {
    const company = await buildCompany();
    const res = await post('/api/v1/qr-codes/', { count: 1 }, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.have.all.keys('count', 'results');
    expect(res.body.count).to.equal(1);
    expect(res.body.results).to.have.length(1);
    const [c] = res.body.results;
    expectVirgin(c);
    const stored = await query('SELECT id, company_id, status, target_type, target_id FROM qr_codes WHERE code = $1', [c.code]);
    expect(stored).to.deep.equal([{ id: c.id, company_id: company.id, status: 'VIRGIN', target_type: null, target_id: null }]);
    // The URL is what a phone opens: it redirects.
    const scan = await api('GET', new URL(c.url).pathname);
    expect(scan.status).to.equal(302);
  });

  it('generates 1000 codes at once: all unique, all VIRGIN, all 12 typable characters with their URL, all stored', async () => {
    const company = await buildCompany();
    const res = await post('/api/v1/qr-codes/', { count: 1000 }, { token: company.token });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(201);
    expect(res.body.count).to.equal(1000);
    const results: any[] = res.body.results;
    expect(results).to.have.length(1000);
    for (const c of results) {
      expect(c.code).to.match(TYPABLE);
      expect(c.status).to.equal('VIRGIN');
      expect(c.url).to.equal(scanUrl(c.code));
      expect(c.target_id).to.equal(null);
    }
    expectVirgin(results[0]);
    expectVirgin(results[999]);
    const codes = new Set(results.map((c) => c.code));
    expect(codes.size).to.equal(1000);
    expect(new Set(results.map((c) => c.id)).size).to.equal(1000);
    expect(await codesOf(company)).to.equal(1000);
    const stored = await query<{ code: string }>("SELECT code FROM qr_codes WHERE company_id = $1 AND status = 'VIRGIN'", [company.id]);
    expect(new Set(stored.map((r) => r.code))).to.deep.equal(codes);
    // 12,000 random characters use the whole alphabet (a narrower one, e.g. hex, would not), and never a look-alike.
    const used = new Set(results.map((c) => c.code).join(''));
    expect(used.size).to.equal(TYPABLE_ALPHABET_SIZE);
    for (const lookAlike of ['0', 'O', '1', 'l', 'I']) expect(used.has(lookAlike), lookAlike).to.equal(false);
  });

  it('never repeats a code across batches or companies', async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const codes = [...(await generate(a, 200)), ...(await generate(a, 200)), ...(await generate(b, 200))].map((c) => c.code);
    expect(new Set(codes).size).to.equal(600);
  });

  it('keeps codes made before with look-alike characters working, and looks codes up exactly (O is not 0)', async () => {
    const company = await buildCompany();
    const old = `Old0O1lI${unique('x').slice(-6)}`;
    await query("INSERT INTO qr_codes (company_id, code, status) VALUES ($1, $2, 'VIRGIN')", [company.id, old]);
    const found = await get(`/api/v1/qr-codes/${old}/`, { token: company.token });
    expect(found.status, JSON.stringify(found.body)).to.equal(200);
    expect(found.body.code).to.equal(old);
    expect((await api('GET', `/go/${old}/`)).status).to.equal(302);
    // A look-alike typed instead is another code: lookups are exact, never "corrected".
    const typo = old.replace('0', 'O');
    expectNotFound(await get(`/api/v1/qr-codes/${typo}/`, { token: company.token }));
    expectNotFound(await get(`/api/v1/qr-codes/${old.toLowerCase()}/`, { token: company.token }));
  });

  it('answers 401 without a bearer token and for an API key (the dashboard endpoints take users only), creating nothing', async () => {
    const company = await buildCompany();
    expectErrorShape(await post('/api/v1/qr-codes/', { count: 1 }), 401, 'authentication_failed');
    expectErrorShape(await post('/api/v1/qr-codes/', { count: 1 }, { apiKey: company.apiKey }), 401, 'authentication_failed');
    expectErrorShape(await get('/api/v1/qr-codes/', { apiKey: company.apiKey }), 401, 'authentication_failed');
    expect(await codesOf(company)).to.equal(0);
  });
});

describe('QR codes: listing with filters and pagination, and retrieving one', () => {
  let company: TestCompany;
  let product: string;
  let item: string;
  let workOrder: string;
  /** Codes by role: v1, v2 VIRGIN; p1 → product; i1 → item; w1 → work order; l1 → product, locked. */
  const c: Record<'v1' | 'v2' | 'p1' | 'i1' | 'w1' | 'l1', string> = {} as never;

  const configure = async (code: string, target_type: string, target_id: string) => {
    const res = await post('/api/v1/widget/configure_qr/', { code, target_type, target_id }, { apiKey: company.apiKey });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };

  before(async () => {
    company = await buildCompany();
    product = (await buildProduct(company)).id;
    const serialized = await buildProduct(company, { profile: 'SERIALIZED' });
    const location = await buildLocation(company);
    const itemRes = await post(
      '/api/v1/items/',
      { product_id: serialized.id, location_id: location.id, serial_number: unique('SN') },
      { token: company.token },
    );
    expect(itemRes.status).to.equal(201);
    item = itemRes.body.id;
    const wo = await post('/api/v1/work-orders/', { number: unique('WO'), title: 'Build', product_id: product }, { token: company.token });
    expect(wo.status).to.equal(201);
    workOrder = wo.body.id;
    const codes = (await generate(company, 6)).map((r) => r.code);
    [c.v1, c.v2, c.p1, c.i1, c.w1, c.l1] = codes;
    await configure(c.p1, 'PRODUCT', product);
    await configure(c.i1, 'ITEM', item);
    await configure(c.w1, 'WORK_ORDER', workOrder);
    await configure(c.l1, 'PRODUCT', product);
    expect((await post('/api/v1/widget/lock_qr/', { code: c.l1 }, { apiKey: company.apiKey })).status).to.equal(200);
  });

  const list = async (qs = '') => {
    const res = await get(`/api/v1/qr-codes/${qs ? `?${qs}` : ''}`, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.have.all.keys('count', 'next', 'previous', 'results');
    return res.body;
  };

  it('lists every code of the company, each in the dashboard shape', async () => {
    const page = await list();
    expect(page.count).to.equal(6);
    expect(page.next).to.equal(null);
    expect(page.previous).to.equal(null);
    expect(page.results.map((r: { code: string }) => r.code)).to.have.members(Object.values(c));
    for (const r of page.results) {
      expect(r).to.have.all.keys(...CODE_KEYS);
      expect(r.url).to.equal(scanUrl(r.code));
    }
    const p1 = page.results.find((r: { code: string }) => r.code === c.p1);
    expect(p1).to.include({ status: 'CONFIGURED', target_type: 'PRODUCT', target_id: product, product_model_id: product, locked_at: null });
    const w1 = page.results.find((r: { code: string }) => r.code === c.w1);
    expect(w1).to.include({ status: 'CONFIGURED', target_type: 'WORK_ORDER', target_id: workOrder, product_model_id: product });
  });

  const filterCases: Array<[string, () => string, () => string[]]> = [
    ['status=VIRGIN', () => 'status=VIRGIN', () => [c.v1, c.v2]],
    ['status=CONFIGURED', () => 'status=CONFIGURED', () => [c.p1, c.i1, c.w1]],
    ['status=LOCKED', () => 'status=LOCKED', () => [c.l1]],
    ['target_type=PRODUCT', () => 'target_type=PRODUCT', () => [c.p1, c.l1]],
    ['target_type=ITEM', () => 'target_type=ITEM', () => [c.i1]],
    ['target_type=WORK_ORDER', () => 'target_type=WORK_ORDER', () => [c.w1]],
    ['target_id=<product> (not the work order that merely belongs to it)', () => `target_id=${product}`, () => [c.p1, c.l1]],
    ['target_id=<item>', () => `target_id=${item}`, () => [c.i1]],
    ['target_id=<work order>', () => `target_id=${workOrder}`, () => [c.w1]],
    ['status=CONFIGURED&target_type=PRODUCT', () => 'status=CONFIGURED&target_type=PRODUCT', () => [c.p1]],
    ['status=LOCKED&target_id=<product>', () => `status=LOCKED&target_id=${product}`, () => [c.l1]],
    ['target_type=ITEM&target_id=<product> (no such pair)', () => `target_type=ITEM&target_id=${product}`, () => []],
    ['status=VIRGIN&target_type=PRODUCT (no such pair)', () => 'status=VIRGIN&target_type=PRODUCT', () => []],
  ];
  for (const [what, qs, expected] of filterCases) {
    it(`filters the list by ${what}`, async () => {
      const page = await list(qs());
      const codes = page.results.map((r: { code: string }) => r.code);
      expect(codes).to.have.members(expected());
      expect(page.count).to.equal(expected().length);
    });
  }

  it('paginates with page and page_size: count, absolute next/previous links, no code twice, none missed', async () => {
    const first = await list('page_size=4');
    expect(first.count).to.equal(6);
    expect(first.results).to.have.length(4);
    expect(first.previous).to.equal(null);
    const next = new URL(first.next);
    expect(next.origin).to.equal('http://localhost:8000');
    expect(next.pathname).to.equal('/api/v1/qr-codes/');
    expect(next.searchParams.get('page')).to.equal('2');
    expect(next.searchParams.get('page_size')).to.equal('4');
    const second = await list(next.search.slice(1));
    expect(second.count).to.equal(6);
    expect(second.results).to.have.length(2);
    expect(second.next).to.equal(null);
    expect(new URL(second.previous).searchParams.get('page')).to.equal('1');
    const codes = [...first.results, ...second.results].map((r: { code: string }) => r.code);
    expect(codes).to.have.length(6);
    expect(codes).to.have.members(Object.values(c));
    // The same order on a second read.
    expect((await list('page_size=4')).results).to.deep.equal(first.results);
  });

  it('keeps the filters in the pagination links', async () => {
    const first = await list('status=CONFIGURED&page_size=2');
    expect(first.count).to.equal(3);
    expect(first.results).to.have.length(2);
    const next = new URL(first.next);
    expect(next.searchParams.get('status')).to.equal('CONFIGURED');
    const second = await list(next.search.slice(1));
    expect(second.results).to.have.length(1);
    expect([...first.results, ...second.results].map((r: { code: string }) => r.code)).to.have.members([c.p1, c.i1, c.w1]);
  });

  it('answers an empty page past the last one, with the count', async () => {
    const page = await list('page=9&page_size=4');
    expect(page.count).to.equal(6);
    expect(page.results).to.deep.equal([]);
    expect(page.next).to.equal(null);
  });

  it('retrieves each code with GET /api/v1/qr-codes/{code}/, as the list shows it', async () => {
    const all = (await list()).results;
    for (const listed of all) {
      const res = await get(`/api/v1/qr-codes/${listed.code}/`, { token: company.token });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(listed);
    }
    const locked = await get(`/api/v1/qr-codes/${c.l1}/`, { token: company.token });
    expect(locked.body).to.include({ status: 'LOCKED', target_type: 'PRODUCT', target_id: product, product_model_id: product });
    expect(locked.body.allowed_transitions).to.deep.equal([]);
    expect(locked.body.locked_at).to.be.a('string');
    expect(new Date(locked.body.locked_at).getTime()).to.be.at.least(new Date(locked.body.configured_at).getTime());
  });

  it('answers 404 not_found for a well-formed code that exists nowhere', async () => {
    expectNotFound(await get('/api/v1/qr-codes/NoSuchCode00/', { token: company.token }));
  });
});

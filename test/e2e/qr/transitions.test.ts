/**
 * The QR state machine through the widget endpoints (API key): VIRGIN → CONFIGURED (configure_qr/) →
 * LOCKED (lock_qr/). Every state × every action, with the answer, `allowed_transitions` (top level and in
 * `details`) and the stored row checked; a refused move changes nothing. Each target type with the
 * `product_model_id` it derives, unknown targets, and racing configures and locks (exactly one wins).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ApiResponse, api, get, post } from '../../support/api';
import { expectErrorShape, expectNotFound } from '../../support/assertions';
import { TestCompany, buildCompany, buildLocation, buildProduct, generateCodes, unique } from '../../support/builders';
import { readCode } from '../../support/qr-codes';

type QrStatus = 'VIRGIN' | 'CONFIGURED' | 'LOCKED';
type TargetType = 'PRODUCT' | 'ITEM' | 'WORK_ORDER';
interface Target {
  type: TargetType;
  id: string;
  /** The product the code points at once configured with this target. */
  productModelId: string | null;
}

const ALLOWED: Record<QrStatus, QrStatus[]> = { VIRGIN: ['CONFIGURED'], CONFIGURED: ['LOCKED'], LOCKED: [] };
const INFO_KEYS = ['code', 'status', 'target_type', 'target_id', 'product_model_id', 'allowed_transitions'];

const configure = (company: TestCompany, code: string, target: Target) =>
  post('/api/v1/widget/configure_qr/', { code, target_type: target.type, target_id: target.id }, { apiKey: company.apiKey });
const lock = (company: TestCompany, code: string) => post('/api/v1/widget/lock_qr/', { code }, { apiKey: company.apiKey });
const qrInfo = (company: TestCompany, code: string) => get(`/api/v1/widget/qr_info/?code=${encodeURIComponent(code)}`, { apiKey: company.apiKey });

async function productTarget(company: TestCompany): Promise<Target> {
  const product = await buildProduct(company);
  return { type: 'PRODUCT', id: product.id, productModelId: product.id };
}

async function itemTarget(company: TestCompany): Promise<Target> {
  const product = await buildProduct(company, { profile: 'SERIALIZED' });
  const location = await buildLocation(company);
  const res = await post('/api/v1/items/', { product_id: product.id, location_id: location.id, serial_number: unique('SN') }, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return { type: 'ITEM', id: res.body.id, productModelId: product.id };
}

async function workOrderTarget(company: TestCompany, withProduct: boolean): Promise<Target> {
  const product = withProduct ? await buildProduct(company) : undefined;
  const res = await post(
    '/api/v1/work-orders/',
    { number: unique('WO'), title: 'Assemble shelves', ...(product ? { product_id: product.id } : {}) },
    { token: company.token },
  );
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return { type: 'WORK_ORDER', id: res.body.id, productModelId: product ? product.id : null };
}

/** The info of a code as the widget shows it. */
function infoOf(code: string, status: QrStatus, target: Target | null) {
  return {
    code,
    status,
    target_type: target ? target.type : null,
    target_id: target ? target.id : null,
    product_model_id: target ? target.productModelId : null,
    allowed_transitions: ALLOWED[status],
  };
}

/** 200 `{success: true, ...info}` for an accepted move. */
function expectMoved(res: ApiResponse, code: string, status: QrStatus, target: Target) {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body).to.have.all.keys('success', ...INFO_KEYS);
  expect(res.body).to.deep.equal({ success: true, ...infoOf(code, status, target) });
}

/** 409 invalid_transition in the error shape, with the allowed next states at the top level and in details. */
function expectInvalidTransition(res: ApiResponse, allowed: QrStatus[]) {
  expect(res.status, JSON.stringify(res.body)).to.equal(409);
  expect(res.body).to.have.all.keys('error', 'code', 'details', 'allowed_transitions', 'request_id');
  expect(res.body.code).to.equal('invalid_transition');
  expect(res.body.error).to.be.a('string').and.not.empty;
  expect(res.body.request_id).to.be.a('string').and.equal(res.headers.get('x-request-id'));
  expect(res.body.allowed_transitions).to.deep.equal(allowed);
  expect(res.body.details).to.be.an('object');
  expect(res.body.details.allowed_transitions).to.deep.equal(allowed);
}

/** A new code of `company` brought to `state` (configured and locked with `target` when past VIRGIN). */
async function codeIn(company: TestCompany, state: QrStatus, target: Target): Promise<string> {
  const [code] = await generateCodes(company);
  if (state !== 'VIRGIN') expectMoved(await configure(company, code, target), code, 'CONFIGURED', target);
  if (state === 'LOCKED') expectMoved(await lock(company, code), code, 'LOCKED', target);
  return code;
}

type Action = 'configure' | 'lock' | 'configure with another target';
const ACTIONS: Action[] = ['configure', 'lock', 'configure with another target'];

/** What each action does in each state: the state it moves to, or null when it is refused. */
const OUTCOME: Record<QrStatus, Record<Action, QrStatus | null>> = {
  VIRGIN: { configure: 'CONFIGURED', lock: null, 'configure with another target': 'CONFIGURED' },
  CONFIGURED: { configure: null, lock: 'LOCKED', 'configure with another target': null },
  LOCKED: { configure: null, lock: null, 'configure with another target': null },
};

describe('QR transitions: every state × every action through the widget endpoints', () => {
  let company: TestCompany;
  let first: Target;
  let second: Target;

  before(async () => {
    company = await buildCompany();
    first = await productTarget(company);
    second = await itemTarget(company);
  });

  for (const state of ['VIRGIN', 'CONFIGURED', 'LOCKED'] as const) {
    for (const action of ACTIONS) {
      const next = OUTCOME[state][action];
      const title = next
        ? `${action} on a ${state} code: 200, the code becomes ${next}, and qr_info and the stored row agree`
        : `${action} on a ${state} code: 409 invalid_transition with allowed_transitions ${JSON.stringify(ALLOWED[state])}, and nothing changes`;
      it(title, async () => {
        const code = await codeIn(company, state, first);
        const before = await readCode(code);
        const infoBefore = await qrInfo(company, code);
        expect(infoBefore.status, JSON.stringify(infoBefore.body)).to.equal(200);
        expect(infoBefore.body).to.deep.equal(infoOf(code, state, state === 'VIRGIN' ? null : first));

        const target = action === 'configure with another target' ? second : first;
        const res = action === 'lock' ? await lock(company, code) : await configure(company, code, target);

        if (next) {
          // A lock keeps the target the code was configured with; a configure takes the one it was given.
          const expectedTarget = action === 'lock' ? first : target;
          expectMoved(res, code, next, expectedTarget);
          const info = await qrInfo(company, code);
          expect(info.status).to.equal(200);
          expect(info.body).to.deep.equal(infoOf(code, next, expectedTarget));
          const after = await readCode(code);
          expect(after).to.include({
            company_id: company.id,
            status: next,
            target_type: expectedTarget.type,
            target_id: expectedTarget.id,
            product_model_id: expectedTarget.productModelId,
          });
          expect(after.configured_at).to.be.an.instanceOf(Date);
          if (next === 'LOCKED') {
            expect(after.locked_at).to.be.an.instanceOf(Date);
            expect(after.configured_at).to.deep.equal(before.configured_at);
          } else {
            expect(after.locked_at).to.equal(null);
          }
        } else {
          expectInvalidTransition(res, ALLOWED[state]);
          expect(await readCode(code)).to.deep.equal(before);
          const info = await qrInfo(company, code);
          expect(info.status).to.equal(200);
          expect(info.body).to.deep.equal(infoBefore.body);
        }
      });
    }
  }

  it('walks one code VIRGIN → CONFIGURED → LOCKED, with allowed_transitions shrinking to [] and every later move refused', async () => {
    const [code] = await generateCodes(company);
    expect((await qrInfo(company, code)).body.allowed_transitions).to.deep.equal(['CONFIGURED']);
    expectMoved(await configure(company, code, first), code, 'CONFIGURED', first);
    expectMoved(await lock(company, code), code, 'LOCKED', first);
    const locked = await readCode(code);
    expectInvalidTransition(await lock(company, code), []);
    expectInvalidTransition(await configure(company, code, first), []);
    expectInvalidTransition(await configure(company, code, second), []);
    expect(await readCode(code)).to.deep.equal(locked);
  });

  it('shows the state on the dashboard too: GET /api/v1/qr-codes/{code}/ follows each move', async () => {
    const [code] = await generateCodes(company);
    const read = async () => (await get(`/api/v1/qr-codes/${code}/`, { token: company.token })).body;
    expect(await read()).to.include({ code, status: 'VIRGIN', target_type: null, target_id: null, configured_at: null, locked_at: null });
    await configure(company, code, second);
    const configured = await read();
    expect(configured).to.include({
      status: 'CONFIGURED',
      target_type: 'ITEM',
      target_id: second.id,
      product_model_id: second.productModelId,
      locked_at: null,
    });
    expect(configured.allowed_transitions).to.deep.equal(['LOCKED']);
    expect(configured.configured_at).to.be.a('string');
    await lock(company, code);
    const locked = await read();
    expect(locked).to.include({ status: 'LOCKED', target_type: 'ITEM', target_id: second.id, configured_at: configured.configured_at });
    expect(locked.allowed_transitions).to.deep.equal([]);
    expect(locked.locked_at).to.be.a('string');
  });
});

describe('QR transitions: configure_qr to each target type, and the product_model_id it derives', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
  });

  const cases: Array<[string, (c: TestCompany) => Promise<Target>]> = [
    ['a PRODUCT target: product_model_id is the product', productTarget],
    ["an ITEM target: product_model_id is the item's product", itemTarget],
    ["a WORK_ORDER target with a product: product_model_id is the work order's product", (c) => workOrderTarget(c, true)],
    ['a WORK_ORDER target without a product: product_model_id is null', (c) => workOrderTarget(c, false)],
  ];
  for (const [what, build] of cases) {
    it(`configures a VIRGIN code with ${what}`, async () => {
      const target = await build(company);
      const [code] = await generateCodes(company);
      const res = await configure(company, code, target);
      expectMoved(res, code, 'CONFIGURED', target);
      if (target.productModelId === null) expect(res.body.product_model_id).to.equal(null);
      expect((await qrInfo(company, code)).body).to.deep.equal(infoOf(code, 'CONFIGURED', target));
      expect(await readCode(code)).to.include({
        status: 'CONFIGURED',
        target_type: target.type,
        target_id: target.id,
        product_model_id: target.productModelId,
      });
    });
  }

  for (const type of ['PRODUCT', 'ITEM', 'WORK_ORDER'] as const) {
    it(`answers 404 for ${type === 'ITEM' ? 'an' : 'a'} ${type} target that does not exist, and the code stays VIRGIN`, async () => {
      const [code] = await generateCodes(company);
      const before = await readCode(code);
      expectNotFound(await configure(company, code, { type, id: randomUUID(), productModelId: null }));
      expect(await readCode(code)).to.deep.equal(before);
      expect(before.status).to.equal('VIRGIN');
    });
  }

  it('answers 404 for the id of a record of another type (a product id given as an ITEM or a WORK_ORDER), and the code stays VIRGIN', async () => {
    const product = await productTarget(company);
    const item = await itemTarget(company);
    const [code] = await generateCodes(company);
    const before = await readCode(code);
    expectNotFound(await configure(company, code, { type: 'ITEM', id: product.id, productModelId: null }));
    expectNotFound(await configure(company, code, { type: 'WORK_ORDER', id: product.id, productModelId: null }));
    expectNotFound(await configure(company, code, { type: 'PRODUCT', id: item.id, productModelId: null }));
    expect(await readCode(code)).to.deep.equal(before);
  });

  it('keeps the product a configured code points at: deleting it answers 409 product_in_use and the code is unchanged', async () => {
    const target = await productTarget(company);
    const [code] = await generateCodes(company);
    expectMoved(await configure(company, code, target), code, 'CONFIGURED', target);
    const before = await readCode(code);
    const res = await api('DELETE', `/api/v1/product-models/${target.id}/`, { token: company.token });
    expectErrorShape(res, 409, 'product_in_use');
    expect(await readCode(code)).to.deep.equal(before);
    expect((await get(`/api/v1/product-models/${target.id}/`, { token: company.token })).status).to.equal(200);
  });

  it('answers 404 for a well-formed code that exists nowhere, on qr_info, configure_qr and lock_qr', async () => {
    const target = await productTarget(company);
    const code = 'Zz' + randomUUID().replace(/-/g, '').slice(0, 10);
    expectNotFound(await qrInfo(company, code));
    expectNotFound(await configure(company, code, target));
    expectNotFound(await lock(company, code));
  });
});

describe('QR transitions: racing requests on one code', () => {
  it("of 10 parallel configures of one VIRGIN code (10 different targets) exactly one wins; nine answer 409 and the winner's target is stored", async () => {
    const company = await buildCompany();
    const targets = await Promise.all(Array.from({ length: 10 }, () => productTarget(company)));
    const [code] = await generateCodes(company);
    const answers = await Promise.all(targets.map((t) => configure(company, code, t)));

    const winners = answers.filter((a) => a.status === 200);
    expect(winners, JSON.stringify(answers.map((a) => [a.status, a.body.code]))).to.have.length(1);
    const losers = answers.filter((a) => a.status !== 200);
    expect(losers).to.have.length(9);
    for (const loser of losers) expectInvalidTransition(loser, ['LOCKED']);

    const winner = targets[answers.indexOf(winners[0])];
    expectMoved(winners[0], code, 'CONFIGURED', winner);
    expect(await readCode(code)).to.include({ status: 'CONFIGURED', target_type: 'PRODUCT', target_id: winner.id, product_model_id: winner.id });
    expect((await qrInfo(company, code)).body).to.deep.equal(infoOf(code, 'CONFIGURED', winner));
  });

  it('of 10 parallel locks of one CONFIGURED code exactly one wins; nine answer 409 with allowed_transitions []', async () => {
    const company = await buildCompany();
    const target = await productTarget(company);
    const code = await codeIn(company, 'CONFIGURED', target);
    const answers = await Promise.all(Array.from({ length: 10 }, () => lock(company, code)));
    expect(answers.filter((a) => a.status === 200)).to.have.length(1);
    const losers = answers.filter((a) => a.status !== 200);
    expect(losers).to.have.length(9);
    for (const loser of losers) expectInvalidTransition(loser, []);
    expect(await readCode(code)).to.include({ status: 'LOCKED', target_id: target.id });
  });

  it('answers refused moves in the error shape (expectErrorShape sees the same code and request id)', async () => {
    const company = await buildCompany();
    const [code] = await generateCodes(company);
    const res = await lock(company, code);
    // The 409 carries one key more than the plain error shape: allowed_transitions.
    expectErrorShape(res, 409, 'invalid_transition');
    expect(res.body.allowed_transitions).to.deep.equal(['CONFIGURED']);
  });
});

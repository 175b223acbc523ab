/**
 * Bad input on the QR endpoints: malformed codes (too short, bad characters, too long), unknown target
 * types, malformed UUIDs, missing and unknown fields, and bad `count`s. Each answers 400 validation_error
 * naming the field, and nothing changes (the code's row, the company's number of codes, the minted keys).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { api, get, post } from '../../support/api';
import { BadCase, expectValidationError } from '../../support/assertions';
import { TestCompany, buildCompany, buildProduct, generateCode, omit } from '../../support/builders';
import { codesOf, readCode } from '../../support/qr-codes';
import { count } from '../../support/sql';

const TOO_LONG = 'a'.repeat(65);

describe('QR input: configure_qr/ refuses bad bodies with 400 naming the field, changing nothing', () => {
  let company: TestCompany;
  let productId: string;
  let code: string;
  let valid: Record<string, unknown>;
  before(async () => {
    company = await buildCompany();
    productId = (await buildProduct(company)).id;
    code = await generateCode(company);
    valid = { code, target_type: 'PRODUCT', target_id: productId };
  });

  /** Each case's body is built from the valid one (which exists once `before` has run). */
  const cases: Array<Omit<BadCase, 'body'> & { body: (valid: Record<string, unknown>) => unknown }> = [
    { when: 'code is too short (5 characters)', body: (v) => ({ ...v, code: 'abcde' }), fields: ['code'] },
    { when: 'code has bad characters (<script>)', body: (v) => ({ ...v, code: '<script>alert(1)</script>' }), fields: ['code'] },
    { when: 'code has a space', body: (v) => ({ ...v, code: 'abc def ghi' }), fields: ['code'] },
    { when: 'code has dots and slashes', body: (v) => ({ ...v, code: '../../etc/passwd' }), fields: ['code'] },
    { when: 'code is too long (65 characters)', body: (v) => ({ ...v, code: TOO_LONG }), fields: ['code'] },
    { when: 'code is a number', body: (v) => ({ ...v, code: 123456789012 }), fields: ['code'] },
    { when: 'code is null', body: (v) => ({ ...v, code: null }), fields: ['code'] },
    { when: 'code is empty', body: (v) => ({ ...v, code: '' }), fields: ['code'] },
    { when: 'target_type is unknown (LOCATION)', body: (v) => ({ ...v, target_type: 'LOCATION' }), fields: ['target_type'] },
    { when: 'target_type is lower case (product)', body: (v) => ({ ...v, target_type: 'product' }), fields: ['target_type'] },
    { when: 'target_type is a number', body: (v) => ({ ...v, target_type: 1 }), fields: ['target_type'] },
    { when: 'target_id is not a UUID', body: (v) => ({ ...v, target_id: 'not-a-uuid' }), fields: ['target_id'] },
    { when: 'target_id is a UUID with a character too many', body: (v) => ({ ...v, target_id: `${randomUUID()}0` }), fields: ['target_id'] },
    { when: 'target_id is SQL', body: (v) => ({ ...v, target_id: "'; DROP TABLE qr_codes; --" }), fields: ['target_id'] },
    { when: 'target_id is a number', body: (v) => ({ ...v, target_id: 42 }), fields: ['target_id'] },
    { when: 'code is missing', body: (v) => omit(v, 'code'), fields: ['code'] },
    { when: 'target_type is missing', body: (v) => omit(v, 'target_type'), fields: ['target_type'] },
    { when: 'target_id is missing', body: (v) => omit(v, 'target_id'), fields: ['target_id'] },
    { when: 'the body is empty', body: () => ({}), fields: ['code', 'target_type', 'target_id'] },
    { when: 'every field is wrong at once', body: () => ({ code: 'x', target_type: 'SHELF', target_id: 'y' }), fields: ['code', 'target_type', 'target_id'] },
    { when: 'an unknown field status is sent', body: (v) => ({ ...v, status: 'LOCKED' }), fields: ['status'] },
    { when: 'an unknown field product_model_id is sent', body: (v) => ({ ...v, product_model_id: v.target_id }), fields: ['product_model_id'] },
    { when: 'an unknown field company_id is sent', body: (v) => ({ ...v, company_id: randomUUID() }), fields: ['company_id'] },
    { when: 'the body is an array', body: (v) => [v], fields: ['body'] },
  ];

  for (const bad of cases) {
    it(`answers 400 when ${bad.when}`, async () => {
      const before = await readCode(code);
      const res = await post('/api/v1/widget/configure_qr/', bad.body(valid), { apiKey: company.apiKey });
      expectValidationError(res, ...bad.fields);
      expect(await readCode(code)).to.deep.equal(before);
      expect(before).to.include({ status: 'VIRGIN', target_id: null });
      expect(await codesOf(company)).to.equal(1);
    });
  }

  it('answers 400 naming body for malformed JSON', async () => {
    const res = await api('POST', '/api/v1/widget/configure_qr/', { apiKey: company.apiKey, rawBody: `{"code": "${code}", "target_type": ` });
    expectValidationError(res, 'body');
    expect(await readCode(code)).to.include({ status: 'VIRGIN' });
  });

  it('still configures the code with the valid body afterwards (the cases above were refused for their input alone)', async () => {
    const res = await post('/api/v1/widget/configure_qr/', valid, { apiKey: company.apiKey });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ status: 'CONFIGURED', target_id: productId });
  });
});

describe('QR input: lock_qr/ and qr_info/ refuse malformed codes and unknown fields with 400', () => {
  let company: TestCompany;
  let code: string;
  before(async () => {
    company = await buildCompany();
    const product = await buildProduct(company);
    code = await generateCode(company);
    const res = await post('/api/v1/widget/configure_qr/', { code, target_type: 'PRODUCT', target_id: product.id }, { apiKey: company.apiKey });
    expect(res.status).to.equal(200);
  });

  const lockCases: Array<[string, () => unknown, string[]]> = [
    ['code is missing', () => ({}), ['code']],
    ['code is too short', () => ({ code: 'abc' }), ['code']],
    ['code has bad characters', () => ({ code: 'abc$%^&*def' }), ['code']],
    ['code is too long', () => ({ code: TOO_LONG }), ['code']],
    ['code is an object', () => ({ code: { $ne: null } }), ['code']],
    ['an unknown field force is sent', () => ({ code, force: true }), ['force']],
    ['an unknown field status is sent', () => ({ code, status: 'LOCKED' }), ['status']],
  ];
  for (const [when, body, fields] of lockCases) {
    it(`lock_qr/ answers 400 when ${when}, and the code stays CONFIGURED`, async () => {
      const before = await readCode(code);
      expectValidationError(await post('/api/v1/widget/lock_qr/', body(), { apiKey: company.apiKey }), ...fields);
      expect(await readCode(code)).to.deep.equal(before);
      expect(before).to.include({ status: 'CONFIGURED', locked_at: null });
    });
  }

  const infoCases: Array<[string, () => string, string]> = [
    ['code is missing', () => '', 'code'],
    ['code is empty', () => 'code=', 'code'],
    ['code is too short', () => 'code=abcde', 'code'],
    ['code has bad characters', () => `code=${encodeURIComponent('<script>x</script>')}`, 'code'],
    ['code has a quote', () => `code=${encodeURIComponent("abc' OR '1'='1")}`, 'code'],
    ['code is too long', () => `code=${TOO_LONG}`, 'code'],
    ['code is given twice', () => `code=${code}&code=${code}`, 'code'],
    ['an unknown parameter is sent', () => `code=${code}&company_id=${randomUUID()}`, 'company_id'],
  ];
  for (const [when, qs, field] of infoCases) {
    it(`qr_info/ answers 400 naming ${field} when ${when}`, async () => {
      expectValidationError(await get(`/api/v1/widget/qr_info/?${qs()}`, { apiKey: company.apiKey }), field);
    });
  }

  it('qr_info/ answers 200 with the api_key in the query (it is the credential, not an unknown parameter)', async () => {
    const res = await get(`/api/v1/widget/qr_info/?code=${code}&api_key=${encodeURIComponent(company.apiKey)}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ code, status: 'CONFIGURED' });
  });
});

describe('QR input: POST /api/v1/qr-codes/ refuses bad counts with 400 naming count, creating nothing', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
  });

  const countCases: Array<[string, unknown, string[]]> = [
    ['count is 0', { count: 0 }, ['count']],
    ['count is 1001', { count: 1001 }, ['count']],
    ['count is -1', { count: -1 }, ['count']],
    ['count is the string "5"', { count: '5' }, ['count']],
    ['count is 2.5', { count: 2.5 }, ['count']],
    ['count is null', { count: null }, ['count']],
    ['count is true', { count: true }, ['count']],
    ['count is an array', { count: [5] }, ['count']],
    ['count is huge', { count: 1e12 }, ['count']],
    ['count is missing', {}, ['count']],
    ['an unknown field is sent', { count: 5, status: 'LOCKED' }, ['status']],
    ['a company_id is sent', { count: 5, company_id: randomUUID() }, ['company_id']],
  ];
  for (const [when, body, fields] of countCases) {
    it(`answers 400 when ${when}`, async () => {
      const before = await count('SELECT count(*) FROM qr_codes');
      expectValidationError(await post('/api/v1/qr-codes/', body, { token: company.token }), ...fields);
      expect(await codesOf(company)).to.equal(0);
      expect(await count('SELECT count(*) FROM qr_codes')).to.equal(before);
    });
  }

  it('answers 400 naming body for malformed JSON, creating nothing', async () => {
    expectValidationError(await api('POST', '/api/v1/qr-codes/', { token: company.token, rawBody: '{"count": 5' }), 'body');
    expect(await codesOf(company)).to.equal(0);
  });

  it('accepts the bounds 1 and 1000 (the limits above are exact)', async () => {
    expect((await post('/api/v1/qr-codes/', { count: 1 }, { token: company.token })).status).to.equal(201);
    expect((await post('/api/v1/qr-codes/', { count: 1000 }, { token: company.token })).status).to.equal(201);
    expect(await codesOf(company)).to.equal(1001);
  });
});

describe('QR input: the dashboard list and lookup refuse bad queries and codes with 400', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
    await generateCode(company);
  });

  const listCases: Array<[string, string]> = [
    ['status=BOGUS', 'status'],
    ['status=virgin', 'status'],
    ['target_type=LOCATION', 'target_type'],
    ['target_id=not-a-uuid', 'target_id'],
    ['target_id=123', 'target_id'],
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['page_size=0', 'page_size'],
    ['page_size=501', 'page_size'],
    ['company_id=00000000-0000-4000-8000-000000000000', 'company_id'],
  ];
  for (const [qs, field] of listCases) {
    it(`GET /api/v1/qr-codes/?${qs} answers 400 naming ${field}`, async () => {
      expectValidationError(await get(`/api/v1/qr-codes/?${qs}`, { token: company.token }), field);
    });
  }

  for (const [what, segment] of [
    ['too short', 'abcde'],
    ['too long', TOO_LONG],
    ['with markup', encodeURIComponent('<script>')],
    ['with a quote', encodeURIComponent("abc'def'gh")],
  ] as const) {
    it(`GET /api/v1/qr-codes/{code}/ answers 400 naming code for a code ${what}`, async () => {
      expectValidationError(await get(`/api/v1/qr-codes/${segment}/`, { token: company.token }), 'code');
    });
  }
});

describe('QR input: exchange_token/ refuses unknown fields', () => {
  it('answers 400 naming an unknown field, and mints nothing', async () => {
    const company = await buildCompany();
    const code = await generateCode(company);
    const scan = await api('GET', `/go/${code}/`);
    const token = new URL(scan.headers.get('location')!).searchParams.get('token');
    expectValidationError(await post('/api/v1/widget/exchange_token/', { token, code }), 'code');
    expect(await count('SELECT count(*) FROM api_keys WHERE qr_code = $1', [code])).to.equal(0);
    // The token was not used up by the refused request.
    expect((await post('/api/v1/widget/exchange_token/', { token })).status).to.equal(200);
  });
});

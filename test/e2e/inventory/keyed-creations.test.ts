/**
 * Creations that a retry would make twice, under an `Idempotency-Key` (docs/decisions/0004-idempotent-bookings.md):
 * a location (from the dashboard's API or the widget's) and a work order without a number have nothing unique
 * in them, so a request whose answer never came, sent again, created a second one. With the first one's key it
 * answers the first creation again. Through the gateway against the real database.
 */
import { expect } from 'chai';
import { api, post, type ApiResponse } from '../../support/api';
import { expectValidationError } from '../../support/assertions';
import { buildCompany, keySpentOnBooking, unique, type TestCompany } from '../../support/builders';
import { count } from '../../support/sql';

interface KeyedCreation {
  title: string;
  path: string;
  /** The dashboard's bearer token or the widget's API key. */
  credential: 'token' | 'apiKey';
  body(): Record<string, unknown>;
  /** Another valid body. */
  other: Record<string, unknown>;
  /** A body the service refuses with 400, and the field it names. */
  refused: { body: Record<string, unknown>; field: string };
  /** The company's records of the kind created. */
  table: 'locations' | 'work_orders';
}

const CREATIONS: KeyedCreation[] = [
  {
    title: 'POST /api/v1/locations/',
    path: '/api/v1/locations/',
    credential: 'token',
    body: () => ({ name: 'Annex', type: 'WAREHOUSE' }),
    other: { name: 'Annex', type: 'STORE' },
    refused: { body: { name: 'Annex', type: 'CASTLE' }, field: 'type' },
    table: 'locations',
  },
  {
    title: 'POST /api/v1/widget/create_location/',
    path: '/api/v1/widget/create_location/',
    credential: 'apiKey',
    body: () => ({ name: 'Van 2', type: 'VEHICLE' }),
    other: { name: 'Van 3', type: 'VEHICLE' },
    refused: { body: { name: '', type: 'VEHICLE' }, field: 'name' },
    table: 'locations',
  },
  {
    title: 'POST /api/v1/work-orders/ (numbered by the company)',
    path: '/api/v1/work-orders/',
    credential: 'token',
    body: () => ({ title: `Assemble ${unique('kit')}` }),
    other: { title: 'Assemble another' },
    refused: { body: { title: 'Assemble', due_date: '2026-02-30' }, field: 'due_date' },
    table: 'work_orders',
  },
];

for (const spec of CREATIONS) {
  describe(`${spec.title} with an Idempotency-Key`, () => {
    const send = (company: TestCompany, body: unknown, key?: string): Promise<ApiResponse> =>
      api('POST', spec.path, {
        ...(spec.credential === 'token' ? { token: company.token } : { apiKey: company.apiKey }),
        body,
        headers: key ? { 'idempotency-key': key } : {},
      });
    const records = (company: TestCompany) => count(`SELECT count(*) FROM ${spec.table} WHERE company_id = $1`, [company.id]);

    it('answers a retry with the first answer again, with Idempotent-Replayed: true, and creates once; another body is 409', async () => {
      const company = await buildCompany();
      const before = await records(company);
      const body = spec.body();
      const key = unique('create');
      const first = await send(company, body, key);
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      const retry = await send(company, body, key);
      expect(retry.status, JSON.stringify(retry.body)).to.equal(201);
      expect(retry.headers.get('idempotent-replayed')).to.equal('true');
      expect(JSON.stringify(retry.body)).to.equal(JSON.stringify(first.body));
      expect(await records(company)).to.equal(before + 1);
      const other = await send(company, spec.other, key);
      expect(other.status, JSON.stringify(other.body)).to.equal(409);
      expect(other.body.code).to.equal('idempotency_key_reused');
      // Without a key the same body is a new creation, as it always was.
      expect((await send(company, body)).status).to.equal(201);
      expect(await records(company)).to.equal(before + 2);
    });

    it('does not remember a refused request under the key: the mended one creates', async () => {
      const company = await buildCompany();
      const before = await records(company);
      const key = unique('create');
      expectValidationError(await send(company, spec.refused.body, key), spec.refused.field);
      const created = await send(company, spec.body(), key);
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.headers.get('idempotent-replayed')).to.equal(null);
      expect(await records(company)).to.equal(before + 1);
    });

    it('creates once when the same request is sent three times at the same moment', async () => {
      const company = await buildCompany();
      const before = await records(company);
      const body = spec.body();
      const key = unique('create');
      const answers = await Promise.all([send(company, body, key), send(company, body, key), send(company, body, key)]);
      expect(answers.map((a) => a.status)).to.deep.equal([201, 201, 201]);
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).to.have.length(2);
      expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).to.equal(1);
      expect(await records(company)).to.equal(before + 1);
    });

    it("keeps a company's keys its own: another company's creation under the same key creates", async () => {
      const key = unique('create');
      const [a, b] = [await buildCompany(), await buildCompany()];
      const first = await send(a, spec.body(), key);
      const second = await send(b, spec.body(), key);
      expect([first.status, second.status]).to.deep.equal([201, 201]);
      expect(second.headers.get('idempotent-replayed')).to.equal(null);
      expect(second.body).to.not.deep.equal(first.body);
    });
  });
}

describe('a key spent by one kind of request', () => {
  it('is refused by another (409 idempotency_key_reused), which creates nothing', async () => {
    const company = await buildCompany();
    const { key } = await keySpentOnBooking(company);
    const before = await count('SELECT count(*) FROM work_orders WHERE company_id = $1', [company.id]);
    const res = await post('/api/v1/work-orders/', { title: 'Assemble' }, { token: company.token, headers: { 'idempotency-key': key } });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.code).to.equal('idempotency_key_reused');
    expect(await count('SELECT count(*) FROM work_orders WHERE company_id = $1', [company.id])).to.equal(before);
  });
});

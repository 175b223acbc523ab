import { expect } from 'chai';
import { ApiOptions, api, get } from '../support/api';
import { TestCompany, buildApiKey, buildCompany } from '../support/builders';
import { system } from '../support/hooks';
import type { RunningGateway } from '../support/system';

const WIDGET_LOCATIONS = '/api/v1/widget/locations/';
const ADMIN = 'https://admin.example.com';
const EXPOSED = ['Retry-After', 'X-Request-Id', 'X-API-Deprecated', 'X-API-Sunset', 'Idempotent-Replayed'];

const preflight = (path: string, origin: string, opts: ApiOptions = {}) =>
  api('OPTIONS', path, {
    ...opts,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key', ...opts.headers },
  });
const list = (value: string | null) => (value ?? '').split(',').map((s) => s.trim().toLowerCase());
const corsHeaders = (headers: Headers) => [...headers.keys()].filter((k) => k.startsWith('access-control-'));

function expectErrorShape(body: any, status: number, code: string) {
  expect(body, JSON.stringify(body)).to.include.keys('error', 'code', 'details', 'request_id');
  expect(body.code).to.equal(code);
  expect(status).to.be.a('number');
}

describe('CORS and unsupported methods', () => {
  let company: TestCompany;
  let restricted: { id: string; key: string };

  before(async () => {
    company = await buildCompany();
    restricted = await buildApiKey(company, { allowed_domains: ['https://shop.example.com'] });
  });

  describe('widget paths', () => {
    it('answers a preflight from any origin without credentials', async () => {
      for (const origin of ['https://shop.example.com', 'https://anyone.example.net']) {
        const res = await preflight(WIDGET_LOCATIONS, origin);
        expect(res.status, origin).to.equal(204);
        expect(res.headers.get('access-control-allow-origin')).to.equal(origin);
        expect(list(res.headers.get('access-control-allow-methods'))).to.include.members(['get', 'post', 'options']);
        expect(list(res.headers.get('access-control-allow-headers'))).to.include.members(['content-type', 'x-api-key', 'idempotency-key', 'x-request-id']);
        expect(res.headers.get('access-control-max-age')).to.equal('600');
        expect(list(res.headers.get('vary'))).to.include('origin');
        expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
      }
    });

    it('gives an actual request from an allowed origin Access-Control-Allow-Origin and the exposed headers', async () => {
      const res = await get(WIDGET_LOCATIONS, { apiKey: restricted.key, headers: { origin: 'https://shop.example.com' } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal('https://shop.example.com');
      expect(list(res.headers.get('access-control-expose-headers'))).to.include.members(EXPOSED.map((h) => h.toLowerCase()));
      expect(list(res.headers.get('vary'))).to.include('origin');
    });

    it('echoes any origin for a key without allowed_domains', async () => {
      const res = await get(WIDGET_LOCATIONS, { apiKey: company.apiKey, headers: { origin: 'https://anyone.example.net' } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal('https://anyone.example.net');
    });

    it('refuses a foreign origin with a restricted key: 403 origin_not_allowed, no Access-Control-Allow-Origin', async () => {
      const res = await get(WIDGET_LOCATIONS, { apiKey: restricted.key, headers: { origin: 'https://evil.example' } });
      expect(res.status).to.equal(403);
      expectErrorShape(res.body, res.status, 'origin_not_allowed');
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it('sends no Access-Control-Allow-Origin on a refusal before the key is accepted (401)', async () => {
      const res = await get(WIDGET_LOCATIONS, { apiKey: `pik_${'x'.repeat(40)}`, headers: { origin: 'https://shop.example.com' } });
      expect(res.status).to.equal(401);
      expectErrorShape(res.body, res.status, 'authentication_failed');
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      expect(list(res.headers.get('vary'))).to.include('origin');
    });

    it('echoes any origin on the public exchange_token/, refusals included', async () => {
      const res = await api('POST', '/api/v1/widget/exchange_token/', { body: { token: 'not-a-token' }, headers: { origin: 'https://anyone.example.net' } });
      expect(res.status).to.equal(400);
      expectErrorShape(res.body, res.status, 'invalid_token');
      expect(res.headers.get('access-control-allow-origin')).to.equal('https://anyone.example.net');
      expect(list(res.headers.get('access-control-expose-headers'))).to.include.members(EXPOSED.map((h) => h.toLowerCase()));
    });
  });

  describe('core paths', () => {
    let gw: RunningGateway;
    before(async () => {
      gw = await system().startGateway({ DASHBOARD_ORIGINS: ADMIN });
    });
    after(async () => {
      await gw?.close();
    });

    it('answers a preflight from a DASHBOARD_ORIGINS origin, Authorization allowed', async () => {
      const res = await preflight('/api/v1/locations/', ADMIN, {
        baseUrl: gw.url,
        headers: { 'access-control-request-headers': 'authorization,content-type' },
      });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal(ADMIN);
      expect(list(res.headers.get('access-control-allow-headers'))).to.include.members([
        'authorization',
        'content-type',
        'x-api-key',
        'idempotency-key',
        'x-request-id',
      ]);
      expect(list(res.headers.get('access-control-allow-methods'))).to.include.members(['get', 'post', 'patch', 'delete']);
      expect(res.headers.get('access-control-max-age')).to.equal('600');
      expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
    });

    it('refuses a preflight from another origin with 403 origin_not_allowed and no CORS headers', async () => {
      for (const baseUrl of [gw.url, system().url]) {
        const res = await preflight('/api/v1/locations/', 'https://evil.example', { baseUrl });
        expect(res.status, baseUrl).to.equal(403);
        expectErrorShape(res.body, res.status, 'origin_not_allowed');
        expect(corsHeaders(res.headers)).to.deep.equal([]);
      }
      // With no DASHBOARD_ORIGINS (the default gateway) even the admin origin is refused.
      expect((await preflight('/api/token/', ADMIN)).status).to.equal(403);
    });

    it('gives actual responses to a dashboard origin the CORS headers, and none to another origin', async () => {
      const ok = await get('/api/v1/locations/', { token: company.token, baseUrl: gw.url, headers: { origin: ADMIN } });
      expect(ok.status).to.equal(200);
      expect(ok.headers.get('access-control-allow-origin')).to.equal(ADMIN);
      expect(list(ok.headers.get('access-control-expose-headers'))).to.include.members(EXPOSED.map((h) => h.toLowerCase()));
      expect(list(ok.headers.get('vary'))).to.include('origin');

      const error = await get('/api/v1/locations/', { baseUrl: gw.url, headers: { origin: ADMIN } });
      expect(error.status).to.equal(401);
      expect(error.headers.get('access-control-allow-origin'), 'errors are readable too').to.equal(ADMIN);

      const foreign = await get('/api/v1/locations/', { token: company.token, baseUrl: gw.url, headers: { origin: 'https://evil.example' } });
      expect(foreign.status).to.equal(200);
      expect(corsHeaders(foreign.headers)).to.deep.equal([]);
    });

    it('rejects a malformed DASHBOARD_ORIGINS at start', async () => {
      let failed: unknown;
      try {
        const bad = await system().startGateway({ DASHBOARD_ORIGINS: 'admin.example.com' });
        await bad.close();
      } catch (err) {
        failed = err;
      }
      expect(String(failed)).to.match(/DASHBOARD_ORIGINS/);
    });
  });

  describe('nothing else changed', () => {
    it('sends no CORS headers on requests without Origin', async () => {
      for (const res of [
        await get('/api/v1/locations/', { token: company.token }),
        await get(WIDGET_LOCATIONS, { apiKey: company.apiKey }),
        await get('/healthz'),
      ]) {
        expect(res.status).to.equal(200);
        expect(corsHeaders(res.headers)).to.deep.equal([]);
      }
    });
  });

  describe('405 method_not_allowed', () => {
    const cases: Array<[string, string, string]> = [
      ['PUT', '/api/token/', 'POST, OPTIONS'],
      ['GET', '/api/token/refresh/', 'POST, OPTIONS'],
      ['DELETE', '/api/v1/register/', 'POST, OPTIONS'],
      ['PUT', '/api/v1/users/', 'GET, HEAD, POST, OPTIONS'],
      // me/ is also a {id}/ to Express (PATCH and DELETE reach that route, which answers 400 naming id).
      ['POST', '/api/v1/users/me/', 'GET, HEAD, PATCH, DELETE, OPTIONS'],
      ['PUT', '/api/v1/api-keys/00000000-0000-0000-0000-000000000000/', 'GET, HEAD, PATCH, DELETE, OPTIONS'],
      ['GET', '/api/v1/api-keys/00000000-0000-0000-0000-000000000000/rotate/', 'POST, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      it(`${method} ${path} answers 405 with Allow: ${allow}`, async () => {
        const res = await api(method, path, { token: company.token });
        expect(res.status).to.equal(405);
        expectErrorShape(res.body, res.status, 'method_not_allowed');
        expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
        expect(res.headers.get('allow')).to.equal(allow);
      });
    }

    it('lets through a method that another route of the same path takes: PATCH /api/v1/users/me/ reaches {id}/', async () => {
      const res = await api('PATCH', '/api/v1/users/me/', { token: company.token, body: { role: 'member' } });
      expect(res.status).to.equal(400);
      expect(res.body.details).to.have.property('id');
    });

    it('answers a plain OPTIONS (no preflight) with 204 and Allow', async () => {
      const res = await api('OPTIONS', '/api/token/');
      expect(res.status).to.equal(204);
      expect(res.headers.get('allow')).to.equal('POST, OPTIONS');
    });

    it('still serves the supported methods and 404s unknown paths', async () => {
      expect((await get('/api/v1/users/me/', { token: company.token })).status).to.equal(200);
      expect((await api('POST', '/api/token/', { body: { username: 'nobody-x', password: 'wrong-password' } })).status).to.equal(401);
      const unknown = await api('PUT', '/api/v1/nothing-here/', { token: company.token });
      expect(unknown.status).to.equal(404);
    });
  });
});

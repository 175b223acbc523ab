/**
 * docs/api/paths-and-hostile-input.md "Paths": a spelling of a path either reaches the route with every one of its policies, or reaches
 * nothing. Each policy is tried with every class of spelling, several of each, on real gateways with rate
 * limits on: the refused ones (case variants, `//`, `%2F`, `/./`, `/../`, `%2e`, backslashes, `;jsessionid`)
 * must answer 404 and change nothing; the accepted ones (final slash left out, `%41`-style escapes of plain
 * characters) must be counted, authenticated, limited, CORS-checked, marked and proxied like the documented
 * spelling. Requests go out raw (support/raw-http.ts): fetch would normalise most of these spellings away.
 */
import { expect } from 'chai';
import { signInternalToken } from '@pi/common';
import type { ApiResponse } from '../support/api';
import { expectErrorShape, expectNotFound, expectPermissionDenied, expectRateLimited } from '../support/assertions';
import { TestCompany, buildApiKey, buildCompany, buildProduct, buildUser, configuredCode, randomPassword, unique } from '../support/builders';
import { system } from '../support/hooks';
import { RawOptions, rawRequest } from '../support/raw-http';
import { count } from '../support/sql';
import type { RunningGateway } from '../support/system';

/** `/api/v1/users/{id}/` with `{id: …}` filled in, and which of its segments are literal. */
function segmentsOf(template: string, params: Record<string, string>) {
  const slash = template.endsWith('/');
  const parts = template.slice(1, slash ? -1 : undefined).split('/');
  return {
    slash,
    segments: parts.map((p) => (/^\{(\w+)\}$/.test(p) ? { text: params[p.slice(1, -1)], literal: false } : { text: p, literal: true })),
  };
}

const join = (segments: string[], slash: boolean) => `/${segments.join('/')}${slash ? '/' : ''}`;
const hex = (ch: string) => ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');

/** Spellings the rules refuse: several of every class. */
function refusedSpellings(template: string, params: Record<string, string> = {}): string[] {
  const { slash, segments } = segmentsOf(template, params);
  const texts = segments.map((s) => s.text);
  const literal = segments.map((s, i) => (s.literal ? i : -1)).filter((i) => i >= 0);
  const first = literal[0];
  const last = literal[literal.length - 1];
  const withSegment = (i: number, text: string) =>
    join(
      texts.map((t, j) => (j === i ? text : t)),
      slash,
    );
  const capitalized = (t: string) => t[0].toUpperCase() + t.slice(1);
  return [
    // case
    join(
      texts.map((t, i) => (segments[i].literal ? t.toUpperCase() : t)),
      slash,
    ),
    withSegment(last, capitalized(texts[last])),
    withSegment(first, capitalized(texts[first])),
    withSegment(last, texts[last].slice(0, -1) + texts[last].slice(-1).toUpperCase()),
    // empty segments
    `/${join(texts, slash)}`,
    join([texts[0], '', ...texts.slice(1)], slash),
    `${join(texts, true)}/`,
    // encoded slashes
    `/${texts[0]}%2F${texts.slice(1).join('/')}${slash ? '/' : ''}`,
    `/${texts[0]}%2f${texts.slice(1).join('/')}${slash ? '/' : ''}`,
    `${join(texts, false)}%2F`,
    // dot segments
    join([texts[0], '.', ...texts.slice(1)], slash),
    join([texts[0], 'x', '..', ...texts.slice(1)], slash),
    join([texts[0], '%2e', ...texts.slice(1)], slash),
    join([texts[0], 'x', '%2E%2E', ...texts.slice(1)], slash),
    `${join(texts, true)}.`,
    // backslashes
    `/${texts[0]}\\${texts.slice(1).join('/')}${slash ? '/' : ''}`,
    `${join(texts, false)}\\`,
    `/${texts[0]}%5C${texts.slice(1).join('/')}${slash ? '/' : ''}`,
    // ;parameters
    `${join(texts, true)};jsessionid=0123ABCD`,
    `${join(texts, false)};jsessionid=0123ABCD${slash ? '/' : ''}`,
    withSegment(first, `${texts[first]};x=1`),
  ];
}

/** Spellings the rules take for the documented path itself. */
function acceptedSpellings(template: string, params: Record<string, string> = {}): string[] {
  const { slash, segments } = segmentsOf(template, params);
  const texts = segments.map((s) => s.text);
  const last = segments
    .map((s, i) => (s.literal ? i : -1))
    .filter((i) => i >= 0)
    .pop()!;
  const escaped = (lower: boolean) => texts.map((t, i) => (i === last ? `%${lower ? hex(t[0]).toLowerCase() : hex(t[0])}${t.slice(1)}` : t));
  return [
    join(texts, !slash),
    join(escaped(false), slash),
    join(escaped(true), !slash),
    join(
      texts.map((t, i) => (i === 0 ? `%${hex(t[0])}${t.slice(1)}` : t)),
      slash,
    ),
  ];
}

/** A gateway of its own with rate limits on, closed after `body`. */
async function withGateway(env: Record<string, string>, body: (gw: RunningGateway, at: (o?: RawOptions) => RawOptions) => Promise<void>) {
  const gw = await system().startGateway({ RATE_LIMITS: 'on', ...env });
  try {
    await body(gw, (o = {}) => ({ ...o, baseUrl: gw.url }));
  } finally {
    await gw.close();
  }
}

function expectRefused(res: ApiResponse, spelling: string) {
  expect(res.status, `${spelling} → ${res.status} ${JSON.stringify(res.body)}`).to.equal(404);
  expectNotFound(res);
}

const loginBody = (c: TestCompany, password = c.admin.password) => ({ username: c.admin.username, password });

describe('path spellings reach a route with all of its policies, or nothing (docs/api/paths-and-hostile-input.md "Paths")', () => {
  it('the spelling classes are what they claim: every refused one differs from the path, every accepted one too', () => {
    const refused = refusedSpellings('/api/token/');
    const accepted = acceptedSpellings('/api/token/');
    expect(refused).to.include.members([
      '/API/TOKEN/',
      '/api/Token/',
      '//api/token/',
      '/api//token/',
      '/api%2Ftoken/',
      '/api/./token/',
      '/api/x/../token/',
      '/api\\token/',
      '/api/token/;jsessionid=0123ABCD',
    ]);
    expect(accepted).to.include.members(['/api/token', '/api/%74oken/']);
    expect(new Set([...refused, ...accepted]).size).to.equal(refused.length + accepted.length);
  });

  describe('login lockout (login: N per minute per client address)', () => {
    it('a locked-out client cannot log in or refresh by any spelling: refused ones reach nothing, accepted ones are counted and limited', async () => {
      const company = await buildCompany();
      await withGateway({ RATE_LIMIT_OVERRIDES: 'login=4' }, async (_gw, at) => {
        // Accepted spellings count against the one login budget…
        for (const path of acceptedSpellings('/api/token/')) {
          const res = await rawRequest('POST', path, at({ body: loginBody(company, 'wrong-password-123') }));
          expectErrorShape(res, 401, 'authentication_failed');
        }
        // …which is now spent, for the documented spelling too.
        expectRateLimited(await rawRequest('POST', '/api/token/', at({ body: loginBody(company) })), 'login');
        for (const path of refusedSpellings('/api/token/')) {
          const res = await rawRequest('POST', path, at({ body: loginBody(company) }));
          expectRefused(res, path);
          expect(JSON.stringify(res.body)).to.not.include('access');
        }
        for (const path of [...acceptedSpellings('/api/token/'), '/api/token/']) {
          expectRateLimited(await rawRequest('POST', path, at({ body: loginBody(company) })), 'login');
        }
        for (const path of refusedSpellings('/api/token/refresh/'))
          expectRefused(await rawRequest('POST', path, at({ body: { refresh: company.refresh } })), path);
        for (const path of acceptedSpellings('/api/token/refresh/')) {
          expectRateLimited(await rawRequest('POST', path, at({ body: { refresh: company.refresh } })), 'login');
        }
      });
    });
  });

  describe('registration (anonymous: N per day per client address)', () => {
    it('refused spellings register nothing; accepted ones register and are counted like the documented path', async () => {
      await withGateway({ RATE_LIMIT_OVERRIDES: 'anonymous_daily=2' }, async (_gw, at) => {
        const register = (name: string) => ({ company_name: name, username: unique('spell'), password: randomPassword() });
        const refusedName = unique('Refused');
        for (const path of refusedSpellings('/api/v1/register/')) expectRefused(await rawRequest('POST', path, at({ body: register(refusedName) })), path);
        expect(await count('SELECT count(*) FROM companies WHERE name = $1', [refusedName])).to.equal(0);
        const [one, two, three] = acceptedSpellings('/api/v1/register/');
        expect((await rawRequest('POST', one, at({ body: register(unique('Accepted')) }))).status).to.equal(201);
        expect((await rawRequest('POST', two, at({ body: register(unique('Accepted')) }))).status).to.equal(201);
        const limitedName = unique('Limited');
        expectRateLimited(await rawRequest('POST', three, at({ body: register(limitedName) })), 'anonymous_daily');
        expectRateLimited(await rawRequest('POST', '/api/v1/register/', at({ body: register(limitedName) })), 'anonymous_daily');
        expect(await count('SELECT count(*) FROM companies WHERE name = $1', [limitedName])).to.equal(0);
      });
    });
  });

  describe("the gateway's own user routes (user: N per day per user)", () => {
    it('refused spellings of /api/v1/users/ reach nothing (no user created); accepted ones spend the daily budget', async () => {
      const company = await buildCompany();
      await withGateway({ RATE_LIMIT_OVERRIDES: 'user_daily=4' }, async (_gw, at) => {
        const username = unique('spelled');
        for (const path of refusedSpellings('/api/v1/users/')) {
          expectRefused(await rawRequest('GET', path, at({ token: company.token })), path);
          expectRefused(await rawRequest('POST', path, at({ token: company.token, body: { username, password: randomPassword() } })), path);
        }
        for (const path of refusedSpellings('/api/v1/users/me/')) expectRefused(await rawRequest('GET', path, at({ token: company.token })), path);
        expect(await count('SELECT count(*) FROM users WHERE username = $1', [username])).to.equal(0);
        for (const path of acceptedSpellings('/api/v1/users/')) {
          const res = await rawRequest('GET', path, at({ token: company.token }));
          expect(res.status, path).to.equal(200);
          expect(res.body.count).to.equal(1);
        }
        expectRateLimited(await rawRequest('GET', '/api/v1/users/me', at({ token: company.token })), 'user_daily');
        expectRateLimited(await rawRequest('GET', '/api/v1/api-keys', at({ token: company.token })), 'user_daily');
      });
    });
  });

  describe('authentication and permission', () => {
    it('core paths: accepted spellings need the bearer token (401 without) and answer as the documented one; refused ones 404 even with it', async () => {
      const company = await buildCompany();
      const documented = await rawRequest('GET', '/api/v1/locations/', { token: company.token });
      expect(documented.status).to.equal(200);
      for (const path of acceptedSpellings('/api/v1/locations/')) {
        expectErrorShape(await rawRequest('GET', path), 401, 'authentication_failed');
        const res = await rawRequest('GET', path, { token: company.token });
        expect(res.status, path).to.equal(200);
        expect(res.body.results.map((l: { id: string }) => l.id)).to.deep.equal(documented.body.results.map((l: { id: string }) => l.id));
      }
      for (const path of refusedSpellings('/api/v1/locations/')) expectRefused(await rawRequest('GET', path, { token: company.token }), path);
    });

    it('admin-only paths: a member is refused 403 by every accepted spelling, and reaches nothing by a refused one', async () => {
      const company = await buildCompany();
      const member = await buildUser(company);
      for (const path of acceptedSpellings('/api/v1/api-keys/'))
        expectPermissionDenied(await rawRequest('POST', path, { token: member.token, body: { name: 'x' } }));
      for (const path of acceptedSpellings('/api/v1/api-keys/{id}/rotate/', { id: company.apiKeyId })) {
        expectPermissionDenied(await rawRequest('POST', path, { token: member.token }));
      }
      for (const path of refusedSpellings('/api/v1/api-keys/{id}/rotate/', { id: company.apiKeyId })) {
        expectRefused(await rawRequest('POST', path, { token: company.token }), path);
      }
      // The widget key still works: no refused spelling rotated it.
      expect((await rawRequest('GET', '/api/v1/widget/locations/', { apiKey: company.apiKey })).status).to.equal(200);
    });

    it('widget paths: accepted spellings need the key (401) and its permission (403); refused ones create nothing', async () => {
      const company = await buildCompany();
      const readOnly = await buildApiKey(company, { permissions: ['read'] });
      for (const path of acceptedSpellings('/api/v1/widget/locations/')) {
        expectErrorShape(await rawRequest('GET', path), 401, 'authentication_failed');
        expect((await rawRequest('GET', path, { apiKey: readOnly.key })).status, path).to.equal(200);
      }
      const name = unique('Shelf');
      for (const path of acceptedSpellings('/api/v1/widget/create_location/')) {
        expectPermissionDenied(await rawRequest('POST', path, { apiKey: readOnly.key, body: { name, type: 'SHELF' } }));
      }
      for (const path of refusedSpellings('/api/v1/widget/create_location/')) {
        expectRefused(await rawRequest('POST', path, { apiKey: company.apiKey, body: { name, type: 'SHELF' } }), path);
      }
      expect(await count('SELECT count(*) FROM locations WHERE name = $1', [name])).to.equal(0);
    });
  });

  describe('CORS', () => {
    const origin = 'https://admin.example.com';
    const preflight = (method: string) => ({ headers: { origin, 'access-control-request-method': method } });

    it('preflights of widget and core paths: accepted spellings get the documented policy, refused ones no CORS header at all', async () => {
      await withGateway({ DASHBOARD_ORIGINS: origin }, async (_gw, at) => {
        for (const path of acceptedSpellings('/api/v1/widget/locations/')) {
          const res = await rawRequest('OPTIONS', path, at(preflight('GET')));
          expect(res.status, path).to.equal(204);
          expect(res.headers.get('access-control-allow-origin')).to.equal(origin);
          expect(res.headers.get('access-control-allow-methods')).to.equal('GET, POST, OPTIONS');
        }
        for (const path of acceptedSpellings('/api/v1/locations/')) {
          const res = await rawRequest('OPTIONS', path, at(preflight('POST')));
          expect(res.status, path).to.equal(204);
          expect(res.headers.get('access-control-allow-methods')).to.equal('GET, POST, PUT, PATCH, DELETE, OPTIONS');
          const foreign = await rawRequest('OPTIONS', path, at({ headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } }));
          expectErrorShape(foreign, 403, 'origin_not_allowed');
        }
        for (const path of [...refusedSpellings('/api/v1/widget/locations/'), ...refusedSpellings('/api/v1/locations/')]) {
          const res = await rawRequest('OPTIONS', path, at(preflight('GET')));
          expectRefused(res, path);
          expect(res.headers.get('access-control-allow-origin'), path).to.equal(null);
        }
      });
    });
  });

  describe('deprecation headers', () => {
    it('?api_key= on a QR URL is marked deprecated in every accepted spelling; a refused spelling is a 404 without the marks', async () => {
      const company = await buildCompany();
      const code = await configuredCode(company, (await buildProduct(company)).id);
      await withGateway({}, async (_gw, at) => {
        for (const path of acceptedSpellings('/go/{code}/', { code })) {
          const res = await rawRequest('GET', `${path}?api_key=pik_old_label_value`, at());
          expect(res.status, path).to.equal(302);
          expect(res.headers.get('x-api-deprecated'), path).to.equal('true');
          expect(res.headers.get('x-api-sunset')).to.match(/^\d{4}-\d{2}-\d{2}$/);
          expect(res.headers.get('location')).to.not.include('api_key');
        }
        for (const path of refusedSpellings('/go/{code}/', { code })) {
          const res = await rawRequest('GET', `${path}?api_key=pik_old_label_value`, at());
          expectRefused(res, path);
          expect(res.headers.get('x-api-deprecated'), path).to.equal(null);
        }
      });
    });
  });

  describe('405', () => {
    it('accepted spellings of a documented path get its 405 and Allow; refused ones are 404, not 405', async () => {
      const company = await buildCompany();
      const code = await configuredCode(company, (await buildProduct(company)).id);
      const cases: Array<[string, string, Record<string, string>, string]> = [
        ['DELETE', '/api/token/', {}, 'POST, OPTIONS'],
        ['GET', '/api/v1/widget/exchange_token/', {}, 'POST, OPTIONS'],
        ['POST', '/go/{code}/', { code }, 'GET, HEAD, OPTIONS'],
        ['PUT', '/api/v1/users/me/', {}, 'GET, HEAD, PATCH, DELETE, OPTIONS'],
      ];
      for (const [method, template, params, allow] of cases) {
        for (const path of acceptedSpellings(template, params)) {
          const res = await rawRequest(method, path, { token: company.token });
          expectErrorShape(res, 405, 'method_not_allowed');
          expect(res.headers.get('allow'), `${method} ${path}`).to.equal(allow);
        }
        for (const path of refusedSpellings(template, params)) expectRefused(await rawRequest(method, path, { token: company.token }), `${method} ${path}`);
      }
    });
  });

  describe('the proxy and the services behind it', () => {
    it('an accepted spelling reaches the service as the documented path; a refused one never reaches it', async () => {
      const company = await buildCompany();
      const serviceLines = (requestId: string) => system().logs.lines.filter((l) => l.includes('"service":"inventory"') && l.includes(requestId));
      for (const path of acceptedSpellings('/api/v1/widget/locations/')) {
        const res = await rawRequest('GET', path, { apiKey: company.apiKey });
        expect(res.status, path).to.equal(200);
        const lines = serviceLines(res.headers.get('x-request-id')!);
        expect(lines.length, path).to.be.greaterThan(0);
        expect(lines.join('')).to.include('"url":"/api/v1/widget/locations/"');
      }
      for (const path of refusedSpellings('/api/v1/widget/locations/')) {
        const res = await rawRequest('GET', path, { apiKey: company.apiKey });
        expectRefused(res, path);
        expect(serviceLines(res.headers.get('x-request-id')!), path).to.deep.equal([]);
      }
    });

    it('a case variant of a literal is not taken for a parameter: /api/v1/widget/LOCATIONS/ is neither locations/ nor a product', async () => {
      const company = await buildCompany();
      for (const path of ['/api/v1/widget/LOCATIONS/', '/api/v1/widget/Move/', '/api/v1/widget/QR_INFO/', '/api/v1/users/ME/', '/api/v1/qr-codes/LABELS.SVG']) {
        expectRefused(await rawRequest('GET', path, { apiKey: company.apiKey, token: company.token }), path);
      }
    });

    it('the services route by the same rules when reached directly with a valid internal token', async () => {
      const company = await buildCompany();
      const token = signInternalToken(
        { companyId: company.id, principal: { kind: 'user', id: company.admin.id }, permissions: ['read', 'write', 'delete'], role: 'admin' },
        'req-spellings-1',
        system().internalJwtSecret,
      );
      const headers = { 'x-internal-auth': token };
      const inventory = system().serviceUrls.inventory;
      for (const path of acceptedSpellings('/api/v1/locations/'))
        expect((await rawRequest('GET', path, { baseUrl: inventory, headers })).status, path).to.equal(200);
      for (const path of [...refusedSpellings('/api/v1/locations/'), '/api/v1/widget/LOCATIONS/', '/api/v1/Product-Models/']) {
        expectRefused(await rawRequest('GET', path, { baseUrl: inventory, headers }), path);
      }
      for (const path of refusedSpellings('/api/v1/qr-codes/'))
        expectRefused(await rawRequest('GET', path, { baseUrl: system().serviceUrls.qr, headers }), path);
      expectRefused(await rawRequest('GET', '/api/v1/qr-codes/LABELS.SVG', { baseUrl: system().serviceUrls.qr, headers }), 'LABELS.SVG');
    });

    it('the scopes of proxied operations follow every accepted spelling: product import, QR API', async () => {
      const company = await buildCompany();
      await withGateway({ RATE_LIMIT_OVERRIDES: 'product_import=2,qr_api=2' }, async (_gw, at) => {
        for (const path of refusedSpellings('/api/v1/product-models/import/')) {
          expectRefused(await rawRequest('POST', path, at({ token: company.token, body: { products: [] } })), path);
        }
        const [a, b, c] = acceptedSpellings('/api/v1/product-models/import/');
        // An empty import is refused by the service (400): it reached it, and was counted.
        for (const path of [a, b])
          expectErrorShape(await rawRequest('POST', path, at({ token: company.token, body: { products: [] } })), 400, 'validation_error');
        expectRateLimited(await rawRequest('POST', c, at({ token: company.token, body: { products: [] } })), 'product_import');

        for (const path of refusedSpellings('/api/v1/widget/qr_info/'))
          expectRefused(await rawRequest('GET', `${path}?code=NOSUCHCODE01`, at({ apiKey: company.apiKey })), path);
        const [x, y, z] = acceptedSpellings('/api/v1/widget/qr_info/');
        for (const path of [x, y]) expect((await rawRequest('GET', `${path}?code=NOSUCHCODE01`, at({ apiKey: company.apiKey }))).status, path).to.equal(404);
        expectRateLimited(await rawRequest('GET', `${z}?code=NOSUCHCODE01`, at({ apiKey: company.apiKey })), 'qr_api');
      });
    });
  });
});

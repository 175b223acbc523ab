import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { freePort } from '@pi/db';
import { CLOSED_PORT } from '../support/closed-port';
import { REDIS_URL, requireRedis } from '../support/redis';
import type { RunningGateway } from '../support/system';
import { ApiOptions, ApiResponse, api, get, post } from '../support/api';
import { expectRateLimited } from '../support/assertions';
import { buildCompany, buildProduct, buildUser, configuredCode } from '../support/builders';
import { system } from '../support/hooks';
import { query } from '../support/sql';

/** Every answer: no RateLimit headers, whatever the status. */
function expectNoRateLimitHeaders(res: ApiResponse) {
  const names = [...res.headers.keys()].filter((name) => /^(x-)?ratelimit/i.test(name));
  expect(names, 'RateLimit headers').to.deep.equal([]);
}

function expectPassed(res: ApiResponse, what: string) {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.not.equal(429);
  expectNoRateLimitHeaders(res);
}

function expectLimited(res: ApiResponse, scope: string) {
  expectRateLimited(res, scope);
  expect(Number.isInteger(res.body.retry_after)).to.equal(true);
  expectNoRateLimitHeaders(res);
}

/** Runs a test against its own gateway with rate limits on (and fresh in-memory counters). */
async function withGateway(env: Record<string, string>, body: (gw: RunningGateway, at: (opts?: ApiOptions) => ApiOptions) => Promise<void>) {
  const gw = await system().startGateway({ RATE_LIMITS: 'on', ...env });
  try {
    await body(gw, (opts = {}) => ({ ...opts, baseUrl: gw.url }));
  } finally {
    await gw.close();
  }
}

describe('rate limits (docs/api/rate-limits-cors-headers.md)', () => {
  it('login endpoints: 10 per minute per client address, refresh included; then 429 with Retry-After', async () => {
    const company = await buildCompany();
    await withGateway({}, async (_gw, at) => {
      const ok = await post('/api/token/', { username: company.admin.username, password: company.admin.password }, at());
      expect(ok.status).to.equal(200);
      expectNoRateLimitHeaders(ok);
      for (let i = 2; i <= 9; i++)
        expectPassed(await post('/api/token/', { username: company.admin.username, password: 'wrong-password' }, at()), `login ${i}`);
      expectPassed(await post('/api/token/refresh/', { refresh: company.refresh }, at()), 'refresh as the 10th');
      expectLimited(await post('/api/token/', { username: company.admin.username, password: company.admin.password }, at()), 'login');
      expectLimited(await post('/api/token/refresh/', { refresh: company.refresh }, at()), 'login');
    });
  });

  it('widget API burst: 100 per minute per key, at the real value; other keys unaffected', async () => {
    const company = await buildCompany();
    const other = await buildCompany();
    await withGateway({}, async (_gw, at) => {
      for (let i = 1; i <= 100; i++) {
        const res = await get('/api/v1/widget/', at({ apiKey: company.apiKey }));
        expect(res.status, `request ${i}`).to.equal(200);
        expectNoRateLimitHeaders(res);
      }
      expectLimited(await get('/api/v1/widget/', at({ apiKey: company.apiKey })), 'widget_burst');
      expect((await get('/api/v1/widget/', at({ apiKey: other.apiKey }))).status).to.equal(200);
    });
  });

  it('widget API sustained budget follows the tier: a premium key gets more than a free one', async () => {
    const free = await buildCompany();
    const premium = await buildCompany();
    await query('UPDATE api_keys SET tier = $1 WHERE id = $2', ['free', free.apiKeyId]);
    await query('UPDATE api_keys SET tier = $1 WHERE id = $2', ['premium', premium.apiKeyId]);
    await withGateway({ RATE_LIMIT_OVERRIDES: 'widget_free=3,widget_standard=6,widget_premium=9' }, async (_gw, at) => {
      for (let i = 1; i <= 3; i++) expect((await get('/api/v1/widget/', at({ apiKey: free.apiKey }))).status).to.equal(200);
      expectLimited(await get('/api/v1/widget/', at({ apiKey: free.apiKey })), 'widget_free');
      for (let i = 1; i <= 9; i++) expect((await get('/api/v1/widget/', at({ apiKey: premium.apiKey }))).status, `premium ${i}`).to.equal(200);
      const over = await get('/api/v1/widget/', at({ apiKey: premium.apiKey }));
      expectLimited(over, 'widget_premium');
      expect(over.body.details.limit).to.equal(9);
    });
  });

  it('a key minted by a QR scan counts against the widget key it came from', async () => {
    const company = await buildCompany();
    // Made through the default, unlimited gateway.
    const code = await configuredCode(company, (await buildProduct(company)).id);
    const scan = await api('GET', `/go/${code}/`);
    expect(scan.status).to.equal(302);
    const token = new URL(scan.headers.get('location')!).searchParams.get('token')!;
    const exchanged = await post('/api/v1/widget/exchange_token/', { token });
    expect(exchanged.status).to.equal(200);
    const minted: string = exchanged.body.api_key;
    expect(minted).to.not.equal(company.apiKey);

    await withGateway({ RATE_LIMIT_OVERRIDES: 'widget_burst=5' }, async (_gw, at) => {
      for (let i = 1; i <= 2; i++) expect((await get('/api/v1/widget/', at({ apiKey: company.apiKey }))).status).to.equal(200);
      for (let i = 1; i <= 3; i++) expect((await get('/api/v1/widget/', at({ apiKey: minted }))).status).to.equal(200);
      expectLimited(await get('/api/v1/widget/', at({ apiKey: minted })), 'widget_burst');
      expectLimited(await get('/api/v1/widget/', at({ apiKey: company.apiKey })), 'widget_burst');
    });
  });

  it('QR redirects: N per minute per client address', async () => {
    const company = await buildCompany();
    // Made through the default, unlimited gateway.
    const code = await configuredCode(company, (await buildProduct(company)).id);
    await withGateway({ RATE_LIMIT_OVERRIDES: 'qr_redirect=3' }, async (_gw, at) => {
      for (let i = 1; i <= 3; i++) {
        const res = await api('GET', `/go/${code}/`, at());
        expect(res.status).to.equal(302);
        expectNoRateLimitHeaders(res);
      }
      expectLimited(await api('GET', `/go/${code}/`, at()), 'qr_redirect');
    });
  });

  it('QR API: N per minute per user and per key', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const generated = await post('/api/v1/qr-codes/', { count: 1 }, { token: company.token });
    const code: string = generated.body.results[0].code;
    await withGateway({ RATE_LIMIT_OVERRIDES: 'qr_api=3' }, async (_gw, at) => {
      for (let i = 1; i <= 3; i++) expect((await post('/api/v1/qr-codes/', { count: 1 }, at({ token: company.token }))).status).to.equal(201);
      expectLimited(await post('/api/v1/qr-codes/', { count: 1 }, at({ token: company.token })), 'qr_api');
      for (let i = 1; i <= 3; i++) {
        expectPassed(
          await post('/api/v1/widget/configure_qr/', { code, target_type: 'PRODUCT', target_id: product.id }, at({ apiKey: company.apiKey })),
          `configure ${i}`,
        );
      }
      expectLimited(
        await post('/api/v1/widget/configure_qr/', { code, target_type: 'PRODUCT', target_id: product.id }, at({ apiKey: company.apiKey })),
        'qr_api',
      );
      // Other widget endpoints of the same key are not QR API requests.
      expect((await get('/api/v1/widget/', at({ apiKey: company.apiKey }))).status).to.equal(200);
    });
  });

  it('imports (products, locations, opening stock): N per hour per company, one budget', async () => {
    const company = await buildCompany();
    const other = await buildCompany();
    const member = await buildUser(company);
    await withGateway({ RATE_LIMIT_OVERRIDES: 'product_import=3' }, async (_gw, at) => {
      const csvImport = (path: string, token: string) =>
        api('POST', `${path}?dry_run=true`, at({ token, rawBody: 'name,type\nShelf 1,SHELF\n', headers: { 'content-type': 'text/csv' } }));
      expectPassed(await post('/api/v1/product-models/import/', { products: [] }, at({ token: company.token })), 'import 1');
      expectPassed(await post('/api/v1/product-models/import/', { products: [] }, at({ token: member.token })), 'import 2');
      expectPassed(await csvImport('/api/v1/locations/import/', company.token), 'import 3 (locations)');
      expectLimited(await post('/api/v1/product-models/import/', { products: [] }, at({ token: company.token })), 'product_import');
      expectLimited(await csvImport('/api/v1/locations/import/', company.token), 'product_import');
      expectLimited(await csvImport('/api/v1/stock/import/', member.token), 'product_import');
      expectPassed(await post('/api/v1/product-models/import/', { products: [] }, at({ token: other.token })), 'another company');
      expect((await get('/api/v1/product-models/', at({ token: company.token }))).status).to.equal(200);
    });
  });

  it('company export: 1 per hour per company, at the real value', async () => {
    const company = await buildCompany();
    const member = await buildUser(company);
    await withGateway({}, async (_gw, at) => {
      const first = await get('/api/v1/export/', at({ token: company.token }));
      expect(first.status).to.equal(200);
      expectNoRateLimitHeaders(first);
      expectLimited(await get('/api/v1/export/', at({ token: member.token })), 'company_export');
      const limited = await get('/api/v1/export/', at({ token: company.token }));
      expectLimited(limited, 'company_export');
      expect(limited.body.retry_after).to.be.within(3500, 3600);
    });
  });

  it('the hourly company quotas give their point back when the system fails the request (5xx), and only then', async () => {
    const company = await buildCompany();
    // The inventory behind this gateway is away (nothing listens on its port), then back (a pass-through to it).
    const port = await freePort();
    const inventory = new URL(system().serviceUrls.inventory);
    const passThrough = http.createServer((req, res) => {
      const forwarded = http.request({ host: inventory.hostname, port: inventory.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(forwarded);
    });
    await withGateway({ INVENTORY_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_OVERRIDES: 'product_import=1' }, async (_gw, at) => {
      const exportAll = () => get('/api/v1/export/', at({ token: company.token }));
      const importNothing = () => post('/api/v1/product-models/import/', { products: [] }, at({ token: company.token }));
      for (let i = 0; i < 3; i++) {
        for (const res of [await exportAll(), await importNothing()]) {
          expect(res.status, JSON.stringify(res.body)).to.equal(503);
          expect(res.body.code).to.equal('service_unavailable');
        }
      }
      await new Promise<void>((resolve) => passThrough.listen(port, '127.0.0.1', resolve));
      try {
        expect((await exportAll()).status).to.equal(200);
        // An import of nothing is refused (400): the client's fault, so its point stays spent.
        expect((await importNothing()).status).to.equal(400);
        expectLimited(await exportAll(), 'company_export');
        expectLimited(await importNothing(), 'product_import');
      } finally {
        passThrough.closeAllConnections();
        await new Promise((resolve) => passThrough.close(resolve));
      }
    });
  });

  it("authenticated users: N per day per user, the gateway's own routes included", async () => {
    const company = await buildCompany();
    const member = await buildUser(company);
    await withGateway({ RATE_LIMIT_OVERRIDES: 'user_daily=4' }, async (_gw, at) => {
      for (let i = 1; i <= 2; i++) expect((await get('/api/v1/locations/', at({ token: company.token }))).status).to.equal(200);
      for (let i = 1; i <= 2; i++) expect((await get('/api/v1/users/', at({ token: company.token }))).status).to.equal(200);
      const limited = await get('/api/v1/locations/', at({ token: company.token }));
      expectLimited(limited, 'user_daily');
      expect(limited.body.retry_after).to.be.within(86_000, 86_400);
      expectLimited(await get('/api/v1/users/', at({ token: company.token })), 'user_daily');
      expect((await get('/api/v1/locations/', at({ token: member.token }))).status).to.equal(200);
    });
  });

  it('anonymous callers: N per day per client address', async () => {
    await withGateway({ RATE_LIMIT_OVERRIDES: 'anonymous_daily=3' }, async (_gw, at) => {
      expectPassed(await api('GET', '/go/doesnotexist1/', at()), 'scan 1');
      expectPassed(await post('/api/v1/widget/exchange_token/', { token: 'not-a-token' }, at()), 'exchange');
      expectPassed(await post('/api/token/', { username: 'nobody', password: 'nothing' }, at()), 'login');
      expectLimited(await api('GET', '/go/doesnotexist2/', at()), 'anonymous_daily');
    });
  });

  it('X-Forwarded-For is ignored from an untrusted peer and honoured from a trusted proxy', async () => {
    const login = (ip: string, at: (o?: ApiOptions) => ApiOptions) =>
      post('/api/token/', { username: 'nobody', password: 'nothing' }, at({ headers: { 'x-forwarded-for': ip } }));
    await withGateway({ RATE_LIMIT_OVERRIDES: 'login=2' }, async (_gw, at) => {
      expectPassed(await login('203.0.113.1', at), 'first');
      expectPassed(await login('203.0.113.2', at), 'second');
      expectLimited(await login('203.0.113.3', at), 'login');
    });
    await withGateway({ RATE_LIMIT_OVERRIDES: 'login=2', TRUSTED_PROXIES: '127.0.0.0/8' }, async (_gw, at) => {
      expectPassed(await login('203.0.113.1', at), 'first');
      expectPassed(await login('203.0.113.1', at), 'second');
      expectLimited(await login('203.0.113.1', at), 'login');
      expectPassed(await login('203.0.113.2', at), 'another client behind the proxy');
    });
  });

  it('two gateways on one Redis share a key budget', async function () {
    await requireRedis(this, 'two gateways on one Redis share a key budget');
    const company = await buildCompany();
    const env = {
      RATE_LIMITS: 'on',
      REDIS_URL,
      RATE_LIMIT_KEY_PREFIX: `pitest:${randomBytes(6).toString('hex')}`,
      RATE_LIMIT_OVERRIDES: 'widget_burst=4',
    };
    const a = await system().startGateway(env);
    const b = await system().startGateway(env);
    try {
      for (const gw of [a, b, a, b]) expect((await get('/api/v1/widget/', { apiKey: company.apiKey, baseUrl: gw.url })).status).to.equal(200);
      expectLimited(await get('/api/v1/widget/', { apiKey: company.apiKey, baseUrl: a.url }), 'widget_burst');
      expectLimited(await get('/api/v1/widget/', { apiKey: company.apiKey, baseUrl: b.url }), 'widget_burst');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('Redis unreachable: requests are still served, limited per process, and the outage is logged once', async () => {
    const company = await buildCompany();
    const before = system().logs.text().split('Redis unreachable').length;
    await withGateway({ REDIS_URL: `redis://127.0.0.1:${CLOSED_PORT}`, RATE_LIMIT_OVERRIDES: 'widget_burst=3' }, async (_gw, at) => {
      for (let i = 1; i <= 3; i++) expect((await get('/api/v1/widget/', at({ apiKey: company.apiKey }))).status).to.equal(200);
      expectLimited(await get('/api/v1/widget/', at({ apiKey: company.apiKey })), 'widget_burst');
      expect((await get('/api/v1/locations/', at({ token: company.token }))).status).to.equal(200);
    });
    expect(system().logs.text().split('Redis unreachable').length - before).to.equal(1);
  });

  it('the default test gateway has rate limits off; the setting defaults to on elsewhere', async () => {
    expect(system().gateway.config.RATE_LIMITS).to.equal('off');
    const { loadGatewayConfig } = await import('@pi/gateway');
    const config = loadGatewayConfig({
      DATABASE_URL: 'postgres://x@localhost/x',
      INTERNAL_JWT_SECRET: 'x'.repeat(32),
      JWT_SECRET: 'y'.repeat(32),
      PUBLIC_BASE_URL: 'http://localhost:8000',
    });
    expect(config.RATE_LIMITS).to.equal('on');
    expect(() => loadGatewayConfig({ ...process.env, RATE_LIMIT_OVERRIDES: 'nonsense=1' })).to.throw();
  });
});

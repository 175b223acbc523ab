/**
 * Security headers by path (services/gateway/src/http/security-headers.ts): helmet's defaults everywhere;
 * `/widget/` and below may be framed by any site, `/dashboard/` and below by none; the documentation UIs get
 * only what they need. The headers are on every answer of a path, whatever it is (a 404 too).
 */
import { expect } from 'chai';
import helmet from 'helmet';
import { system } from '../support/hooks';

/** The headers plain `helmet()` sets, lower-cased. */
function helmetDefaults(): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet()({} as never, res as never, () => {});
  return headers;
}

/** `Content-Security-Policy` as directive → sources. */
function csp(value: string | null): Record<string, string[]> {
  expect(value, 'Content-Security-Policy').to.be.a('string');
  return Object.fromEntries(
    value!
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name, sources]),
  );
}

async function headersOf(path: string, method = 'GET'): Promise<{ status: number; headers: Headers }> {
  const res = await fetch(`${system().url}${path}`, { method, redirect: 'manual' });
  await res.arrayBuffer();
  return { status: res.status, headers: res.headers };
}

describe('Security headers', () => {
  const defaults = helmetDefaults();
  const defaultCsp = csp(defaults['content-security-policy']);

  it("API answers keep every header of helmet's defaults, unchanged", async () => {
    expect(defaults).to.include.keys('content-security-policy', 'x-frame-options', 'strict-transport-security', 'x-content-type-options');
    for (const path of ['/api/schema/', '/api/v1/widget/locations/', '/api/v1/products/', '/api/no-such-thing/', '/widgets/', '/dashboards/']) {
      const { headers } = await headersOf(path);
      for (const [name, value] of Object.entries(defaults)) expect(headers.get(name), `${path}: ${name}`).to.equal(value);
    }
    // A preflight and an error answer too.
    const options = await headersOf('/api/token/', 'OPTIONS');
    expect(options.headers.get('content-security-policy')).to.equal(defaults['content-security-policy']);
    const notAllowed = await headersOf('/api/token/', 'GET');
    expect(notAllowed.status).to.equal(405);
    expect(notAllowed.headers.get('x-frame-options')).to.equal('SAMEORIGIN');
  });

  it('/widget/ and below may be framed by any site: frame-ancestors *, no X-Frame-Options', async () => {
    for (const path of ['/widget/', '/widget', '/widget/assets/none.js', '/widget/sdk.js', '/WIDGET/x/y']) {
      const { headers } = await headersOf(path);
      const policy = csp(headers.get('content-security-policy'));
      expect(policy['frame-ancestors'], path).to.deep.equal(['*']);
      expect(headers.get('x-frame-options'), path).to.equal(null);
      expect(headers.get('cross-origin-resource-policy'), path).to.equal('cross-origin');
      // Everything else of the policy is helmet's.
      expect({ ...policy, 'frame-ancestors': defaultCsp['frame-ancestors'] }, path).to.deep.equal(defaultCsp);
      expect(headers.get('strict-transport-security'), path).to.equal(defaults['strict-transport-security']);
      expect(headers.get('x-content-type-options'), path).to.equal('nosniff');
    }
  });

  it("/dashboard/ and below may be framed by no site: frame-ancestors 'none' and X-Frame-Options: DENY", async () => {
    for (const path of ['/dashboard/', '/dashboard', '/dashboard/assets/none.js', '/Dashboard/x']) {
      const { headers } = await headersOf(path);
      const policy = csp(headers.get('content-security-policy'));
      expect(policy['frame-ancestors'], path).to.deep.equal(["'none'"]);
      expect(headers.get('x-frame-options'), path).to.equal('DENY');
      expect({ ...policy, 'frame-ancestors': defaultCsp['frame-ancestors'] }, path).to.deep.equal(defaultCsp);
      expect(headers.get('cross-origin-resource-policy'), path).to.equal('same-origin');
    }
  });

  it("the documentation UIs: Redoc may start workers from blob: URLs, nothing else is looser than helmet's defaults", async () => {
    const redoc = await headersOf('/api/redoc/');
    expect(redoc.status).to.equal(200);
    const redocPolicy = csp(redoc.headers.get('content-security-policy'));
    expect(redocPolicy['worker-src']).to.deep.equal(["'self'", 'blob:']);
    const { 'worker-src': _worker, ...rest } = redocPolicy;
    expect(rest).to.deep.equal(defaultCsp);

    const swagger = await headersOf('/api/docs/');
    expect(swagger.status).to.equal(200);
    const swaggerPolicy = csp(swagger.headers.get('content-security-policy'));
    expect(swaggerPolicy['img-src']).to.deep.equal(["'self'", 'data:']);
    expect(swaggerPolicy).to.deep.equal(defaultCsp);

    for (const { headers } of [redoc, swagger]) {
      expect(csp(headers.get('content-security-policy'))['script-src']).to.deep.equal(["'self'"]);
      expect(headers.get('x-frame-options')).to.equal('SAMEORIGIN');
    }
    const schema = csp((await headersOf('/api/schema/')).headers.get('content-security-policy'));
    expect(schema).not.to.have.property('worker-src');
  });

  it('a plain-HTTP install on a LAN address drops upgrade-insecure-requests (pages would load nothing), and only that', async () => {
    const lan = await system().startGateway({ PUBLIC_BASE_URL: 'http://192.168.1.10:8000' });
    try {
      for (const path of ['/widget/', '/dashboard/', '/api/docs/', '/api/schema/']) {
        const res = await fetch(`${lan.url}${path}`);
        await res.arrayBuffer();
        const policy = csp(res.headers.get('content-security-policy'));
        expect(policy, path).not.to.have.property('upgrade-insecure-requests');
        expect(policy['script-src'], path).to.deep.equal(["'self'"]);
      }
      const api = await fetch(`${lan.url}/api/schema/`);
      const { 'upgrade-insecure-requests': _upgrade, ...rest } = defaultCsp;
      expect(csp(api.headers.get('content-security-policy'))).to.deep.equal(rest);
    } finally {
      await lan.close();
    }
    // Loopback and HTTPS installs keep it (the default test gateway is http://localhost:8000).
    expect(csp((await headersOf('/widget/')).headers.get('content-security-policy'))).to.have.property('upgrade-insecure-requests');
  });
});

import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { signInternalToken } from '@pi/common';
import { get } from '../support/api';
import { buildCompany } from '../support/builders';
import { system } from '../support/hooks';

describe('internal authentication between the gateway and the services', () => {
  const services = ['inventory', 'qr', 'monitor', 'notifier'] as const;
  const identity = (companyId: string) => ({
    companyId,
    principal: { kind: 'user' as const, id: '00000000-0000-4000-8000-000000000001' },
    permissions: ['read' as const, 'write' as const, 'delete' as const],
    role: 'admin' as const,
  });

  for (const service of services) {
    it(`${service} answers 401 to a request without an internal token, and its probes without one`, async () => {
      const baseUrl = system().serviceUrls[service];
      const res = await get('/api/v1/locations/', { baseUrl });
      expect(res.status).to.equal(401);
      expect(res.body.code).to.equal('authentication_failed');
      expect((await get('/healthz', { baseUrl })).status).to.equal(200);
      expect((await get('/readyz', { baseUrl })).body).to.deep.equal({ status: 'ready' });
    });
  }

  it('accepts a valid internal token and scopes the answer to its company', async () => {
    const company = await buildCompany();
    const token = signInternalToken(identity(company.id), 'req-12345678', system().internalJwtSecret);
    const res = await get('/api/v1/locations/', { baseUrl: system().serviceUrls.inventory, headers: { 'x-internal-auth': token } });
    expect(res.status).to.equal(200);
    expect(res.body.count).to.equal(2);
  });

  it('refuses an expired internal token', async () => {
    const company = await buildCompany();
    const token = signInternalToken(identity(company.id), 'req-12345678', system().internalJwtSecret);
    const claims = jwt.decode(token) as jwt.JwtPayload;
    const expired = jwt.sign({ ...claims, iat: claims.iat! - 120, exp: claims.iat! - 60 }, system().internalJwtSecret, { algorithm: 'HS256' });
    const res = await get('/api/v1/locations/', { baseUrl: system().serviceUrls.inventory, headers: { 'x-internal-auth': expired } });
    expect(res.status).to.equal(401);
  });

  it('refuses a token signed with another secret', async () => {
    const company = await buildCompany();
    const forged = signInternalToken(identity(company.id), 'req-12345678', 'another-secret-of-at-least-32-characters!');
    const res = await get('/api/v1/locations/', { baseUrl: system().serviceUrls.inventory, headers: { 'x-internal-auth': forged } });
    expect(res.status).to.equal(401);
  });

  it('lets an anonymous gateway token reach public routes only', async () => {
    const anonymous = signInternalToken(undefined, 'req-12345678', system().internalJwtSecret);
    const headers = { 'x-internal-auth': anonymous };
    const locations = await get('/api/v1/locations/', { baseUrl: system().serviceUrls.inventory, headers });
    expect(locations.status).to.equal(401);
    const codes = await get('/api/v1/qr-codes/', { baseUrl: system().serviceUrls.qr, headers });
    expect(codes.status).to.equal(401);
    const scan = await get('/go/UnknownCode1/', { baseUrl: system().serviceUrls.qr, headers });
    expect(scan.status).to.equal(404);
    expect(scan.headers.get('content-type')).to.match(/text\/html/);
    const withoutToken = await get('/go/UnknownCode1/', { baseUrl: system().serviceUrls.qr });
    expect(withoutToken.status).to.equal(401);
  });

  it('replaces an internal token a client sends through the gateway', async () => {
    const company = await buildCompany();
    const victim = await buildCompany();
    const forged = signInternalToken(identity(victim.id), 'req-12345678', system().internalJwtSecret);
    const res = await get('/api/v1/locations/', { token: company.token, headers: { 'x-internal-auth': forged } });
    expect(res.status).to.equal(200);
    const victims = (await get('/api/v1/locations/', { token: victim.token })).body.results.map((l: { id: string }) => l.id);
    expect(victims).to.have.length(2);
    for (const id of victims) expect(res.body.results.map((l: { id: string }) => l.id)).to.not.include(id);
    const mine = await get('/api/v1/locations/', { token: company.token });
    expect(res.body.results).to.deep.equal(mine.body.results);
  });

  it('refuses a user bearer token presented as the internal token', async () => {
    const company = await buildCompany();
    const res = await get('/api/v1/locations/', { baseUrl: system().serviceUrls.inventory, headers: { 'x-internal-auth': company.token } });
    expect(res.status).to.equal(401);
  });

  it('refuses an internal token whose permissions do not cover the method', async () => {
    const company = await buildCompany();
    const readOnly = { ...identity(company.id), permissions: ['read' as const] };
    const token = signInternalToken(readOnly, 'req-12345678', system().internalJwtSecret);
    const res = await fetch(`${system().serviceUrls.inventory}/api/v1/locations/`, {
      method: 'POST',
      headers: { 'x-internal-auth': token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', type: 'WAREHOUSE' }),
    });
    expect(res.status).to.equal(403);
  });

  it('forwards the request id from the gateway to the service and back', async () => {
    const company = await buildCompany();
    const res = await get('/api/v1/locations/', { token: company.token, headers: { 'x-request-id': 'trace-abcdef-123' } });
    expect(res.headers.get('x-request-id')).to.equal('trace-abcdef-123');
    const log = system().logs.text();
    expect(log).to.match(/"service":"inventory"[^\n]*"id":"trace-abcdef-123"/);
  });

  it('answers 503 service_unavailable in the error shape when a service is down', async () => {
    const company = await buildCompany();
    const gateway = await system().startGateway({ INVENTORY_URL: 'http://127.0.0.1:9' });
    try {
      const res = await get('/api/v1/locations/', { token: company.token, baseUrl: gateway.url });
      expect(res.status).to.equal(503);
      expect(res.body.code).to.equal('service_unavailable');
      expect(res.body).to.have.all.keys('error', 'code', 'details', 'request_id');
    } finally {
      await gateway.close();
    }
  });
});

/**
 * `X-Request-Deadline` at a service's edge (docs/api/deadlines-and-retries.md): believed only with a valid
 * internal token, a request that arrives after its deadline is refused at once with 503 and changes
 * nothing, a malformed or implausible one is ignored (logged), and a client's own never gets past the gateway.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { signInternalToken } from '@pi/common';
import { api } from '../support/api';
import { TestCompany, buildCompany } from '../support/builders';
import { system } from '../support/hooks';
import { count } from '../support/sql';

describe('X-Request-Deadline at the services', () => {
  let company: TestCompany;
  const tokenFor = (c: TestCompany) =>
    signInternalToken(
      { companyId: c.id, principal: { kind: 'user', id: c.admin.id }, permissions: ['read', 'write'], role: 'admin' },
      randomUUID(),
      system().internalJwtSecret,
    );
  const createLocation = (headers: Record<string, string>, name: string) =>
    api('POST', '/api/v1/locations/', { baseUrl: system().serviceUrls.inventory, headers, body: { name, type: 'WAREHOUSE' } });
  const locationsNamed = (name: string) => count('SELECT count(*) FROM locations WHERE company_id = $1 AND name = $2', [company.id, name]);

  before(async () => {
    company = await buildCompany();
  });

  it('refuses a request that arrives after its deadline with 503 service_unavailable, and changes nothing', async () => {
    const name = `Late ${randomUUID()}`;
    const res = await createLocation({ 'x-internal-auth': tokenFor(company), 'x-request-deadline': String(Date.now() - 1000) }, name);
    expect(res.status).to.equal(503);
    expect(res.body).to.include({ code: 'service_unavailable' });
    expect(res.body.error).to.include('nothing was changed');
    expect(await locationsNamed(name)).to.equal(0);
  });

  it('works within a deadline that is still ahead', async () => {
    const name = `In time ${randomUUID()}`;
    const res = await createLocation({ 'x-internal-auth': tokenFor(company), 'x-request-deadline': String(Date.now() + 10_000) }, name);
    expect(res.status).to.equal(201);
    expect(await locationsNamed(name)).to.equal(1);
  });

  for (const value of ['soon', '12.5', '-5', '1e13', String(Date.now() + 2 * 24 * 3600 * 1000), '0']) {
    it(`ignores a malformed or implausible deadline (${value}) and logs it`, async () => {
      const mark = system().logs.lines.length;
      const name = `Malformed ${randomUUID()}`;
      const res = await createLocation({ 'x-internal-auth': tokenFor(company), 'x-request-deadline': value }, name);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(await locationsNamed(name)).to.equal(1);
      expect(
        system()
          .logs.lines.slice(mark)
          .some((l) => l.includes('malformed x-request-deadline')),
      ).to.equal(true);
    });
  }

  it('believes no deadline without a valid internal token: 401 first', async () => {
    const res = await createLocation({ 'x-request-deadline': String(Date.now() - 1000) }, `No token ${randomUUID()}`);
    expect(res.status).to.equal(401);
  });

  it("never forwards a client's deadline: one long past sent through the gateway does not refuse the request", async () => {
    const name = `Through the gateway ${randomUUID()}`;
    const res = await api('POST', '/api/v1/locations/', {
      token: company.token,
      headers: { 'x-request-deadline': String(Date.now() - 60_000) },
      body: { name, type: 'WAREHOUSE' },
    });
    expect(res.status).to.equal(201);
    expect(await locationsNamed(name)).to.equal(1);
  });
});

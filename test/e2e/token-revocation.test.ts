/**
 * Revoking a user's tokens (docs/api/authentication.md "Revoking a user's tokens"): a password change, a role change and a
 * deactivation refuse that user's existing access and refresh tokens at once, on every gateway replica, even
 * one that had them in its credential cache; new logins work.
 */
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { del, get, patch, post } from '../support/api';
import { expectErrorShape } from '../support/assertions';
import { TestCompany, buildCompany, buildUser, logIn } from '../support/builders';
import { system } from '../support/hooks';
import type { RunningGateway } from '../support/system';

describe("revoking a user's tokens", () => {
  let second: RunningGateway;
  before(async () => {
    second = await system().startGateway();
  });
  after(async () => {
    await second.close();
  });

  const gateways = () => [system().url, second.url];

  /** A bearer request on each gateway's own route (users) and on a proxied one (locations): the statuses. */
  async function statuses(token: string): Promise<number[]> {
    const out: number[] = [];
    for (const baseUrl of gateways()) {
      out.push((await get('/api/v1/users/me/', { token, baseUrl })).status);
      out.push((await get('/api/v1/locations/', { token, baseUrl })).status);
    }
    return out;
  }

  async function refreshStatuses(refresh: string): Promise<number[]> {
    const out: number[] = [];
    for (const baseUrl of gateways()) out.push((await post('/api/token/refresh/', { refresh }, { baseUrl })).status);
    return out;
  }

  /** A member logged in, whose tokens both gateways have used (and so cached the user). */
  async function signedInMember(company: TestCompany) {
    const member = await buildUser(company);
    const tokens = await logIn(member.username, member.password);
    expect(await statuses(tokens.access)).to.deep.equal([200, 200, 200, 200]);
    expect(await refreshStatuses(tokens.refresh)).to.deep.equal([200, 200]);
    return { ...member, ...tokens };
  }

  const changes: Array<{
    what: string;
    change: (company: TestCompany, userId: string) => Promise<number>;
    /** What the change answers: 200 with the user for a PATCH, 204 for a DELETE. */
    status: 200 | 204;
    newPassword?: string;
    loginAfter: boolean;
  }> = [
    {
      what: 'a password change (PATCH password)',
      change: async (company, id) => (await patch(`/api/v1/users/${id}/`, { password: 'a brand new passphrase' }, { token: company.token })).status,
      status: 200,
      newPassword: 'a brand new passphrase',
      loginAfter: true,
    },
    {
      what: 'a role change (PATCH role)',
      change: async (company, id) => (await patch(`/api/v1/users/${id}/`, { role: 'admin' }, { token: company.token })).status,
      status: 200,
      loginAfter: true,
    },
    {
      what: 'a deactivation (PATCH is_active false)',
      change: async (company, id) => (await patch(`/api/v1/users/${id}/`, { is_active: false }, { token: company.token })).status,
      status: 200,
      loginAfter: false,
    },
    {
      what: 'a deactivation (DELETE)',
      change: async (company, id) => (await del(`/api/v1/users/${id}/`, { token: company.token })).status,
      status: 204,
      loginAfter: false,
    },
  ];

  for (const { what, change, status, newPassword, loginAfter } of changes) {
    it(`refuses the old access and refresh tokens at once on every gateway after ${what}`, async () => {
      const company = await buildCompany();
      const member = await signedInMember(company);
      expect(await change(company, member.id)).to.equal(status);

      expect(await statuses(member.access)).to.deep.equal([401, 401, 401, 401]);
      expect(await refreshStatuses(member.refresh)).to.deep.equal([401, 401]);
      expectErrorShape(await get('/api/v1/locations/', { token: member.access, baseUrl: second.url }), 401, 'authentication_failed');

      if (!loginAfter) {
        expect((await post('/api/token/', { username: member.username, password: member.password })).status).to.equal(401);
        // Reactivated, the user logs in again; the tokens from before stay refused.
        expect((await patch(`/api/v1/users/${member.id}/`, { is_active: true }, { token: company.token })).status).to.equal(200);
      }
      const fresh = await logIn(member.username, newPassword ?? member.password);
      expect(await statuses(fresh.access)).to.deep.equal([200, 200, 200, 200]);
      expect(await refreshStatuses(fresh.refresh)).to.deep.equal([200, 200]);
      expect(await statuses(member.access)).to.deep.equal([401, 401, 401, 401]);
    });
  }

  it('answers the role change with the new role at once: the old token cannot act as the old role', async () => {
    const company = await buildCompany();
    const admin = await buildUser(company, { role: 'admin' });
    expect((await get('/api/v1/api-keys/', { token: admin.token, baseUrl: second.url })).status).to.equal(200);
    expect((await patch(`/api/v1/users/${admin.id}/`, { role: 'member' }, { token: company.token })).status).to.equal(200);
    expect((await get('/api/v1/api-keys/', { token: admin.token, baseUrl: second.url })).status).to.equal(401);
    const relogged = await logIn(admin.username, admin.password);
    expect((await get('/api/v1/api-keys/', { token: relogged.access, baseUrl: second.url })).status).to.equal(403);
  });

  it('keeps tokens working through changes that grant nothing new: an email change, the same role again', async () => {
    const company = await buildCompany();
    const member = await signedInMember(company);
    expect((await patch(`/api/v1/users/${member.id}/`, { email: 'moved@example.com' }, { token: company.token })).status).to.equal(200);
    expect((await patch(`/api/v1/users/${member.id}/`, { role: 'member' }, { token: company.token })).status).to.equal(200);
    expect(await statuses(member.access)).to.deep.equal([200, 200, 200, 200]);
    expect(await refreshStatuses(member.refresh)).to.deep.equal([200, 200]);
  });

  it('revokes on a change made outside the API too (an operator resetting a password hash in SQL)', async () => {
    const company = await buildCompany();
    const member = await signedInMember(company);
    await system().db.sequelize.query(`UPDATE users SET password_hash = 'scrypt$14$8$1$reset$reset' WHERE id = $1`, { bind: [member.id] });
    await system().gateway.credentials.settle();
    expect(await statuses(member.access)).to.deep.equal([401, 401, 401, 401]);
    expect(await refreshStatuses(member.refresh)).to.deep.equal([401, 401]);
  });

  it('accepts a token issued before token versions existed (no `ver`) until the first revoking change', async () => {
    const company = await buildCompany();
    const member = await signedInMember(company);
    const claims = jwt.decode(member.access) as jwt.JwtPayload;
    const { ver, ...legacy } = claims;
    expect(ver).to.equal(0);
    const old = jwt.sign(legacy, system().jwtSecret, { algorithm: 'HS256' });
    expect(await statuses(old)).to.deep.equal([200, 200, 200, 200]);
    expect((await patch(`/api/v1/users/${member.id}/`, { password: 'another long passphrase' }, { token: company.token })).status).to.equal(200);
    expect(await statuses(old)).to.deep.equal([401, 401, 401, 401]);
  });

  it('refuses a token whose version is not a whole number', async () => {
    const company = await buildCompany();
    const member = await signedInMember(company);
    const claims = jwt.decode(member.access) as jwt.JwtPayload;
    for (const ver of ['0', null, 0.5, {}]) {
      const forged = jwt.sign({ ...claims, ver }, system().jwtSecret, { algorithm: 'HS256' });
      expect((await get('/api/v1/locations/', { token: forged })).status, JSON.stringify(ver)).to.equal(401);
    }
  });
});

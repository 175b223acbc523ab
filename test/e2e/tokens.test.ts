import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { get, patch, post } from '../support/api';
import { buildCompany, buildUser } from '../support/builders';
import { system } from '../support/hooks';

const decode = (token: string) => jwt.decode(token) as jwt.JwtPayload;

describe('POST /api/token/ and /api/token/refresh/', () => {
  it('logs in with username and password and answers an access and a refresh token', async () => {
    const company = await buildCompany();
    const res = await post('/api/token/', { username: company.admin.username, password: company.admin.password });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.all.keys('access', 'refresh');
    const me = await get('/api/v1/users/me/', { token: res.body.access });
    expect(me.status).to.equal(200);
    expect(me.body.username).to.equal(company.admin.username);
  });

  it('gives the access token 900 s and the refresh token 604800 s', async () => {
    const company = await buildCompany();
    const access = decode(company.token);
    const refresh = decode(company.refresh);
    expect(access.exp! - access.iat!).to.equal(900);
    expect(refresh.exp! - refresh.iat!).to.equal(604800);
  });

  it('logs in whatever the case of the username', async () => {
    const company = await buildCompany();
    const res = await post('/api/token/', { username: company.admin.username.toUpperCase(), password: company.admin.password });
    expect(res.status).to.equal(200);
  });

  it('refreshes: a refresh token gives a new, working access token', async () => {
    const company = await buildCompany();
    const res = await post('/api/token/refresh/', { refresh: company.refresh });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.all.keys('access');
    expect(decode(res.body.access).typ).to.equal('access');
    const me = await get('/api/v1/users/me/', { token: res.body.access });
    expect(me.status).to.equal(200);
  });

  it('answers 401 authentication_failed for a wrong password and for an unknown user, with the same message', async () => {
    const company = await buildCompany();
    const wrong = await post('/api/token/', { username: company.admin.username, password: 'not-the-password' });
    const unknown = await post('/api/token/', { username: 'nobody-at-all', password: 'whatever-it-is' });
    for (const res of [wrong, unknown]) {
      expect(res.status).to.equal(401);
      expect(res.body.code).to.equal('authentication_failed');
      expect(res.body).to.have.all.keys('error', 'code', 'details', 'request_id');
    }
    expect(wrong.body.error).to.equal(unknown.body.error);
  });

  it('refuses a refresh token used as an access token, and an access token used as a refresh token', async () => {
    const company = await buildCompany();
    const asAccess = await get('/api/v1/users/', { token: company.refresh });
    expect(asAccess.status).to.equal(401);
    const asRefresh = await post('/api/token/refresh/', { refresh: company.token });
    expect(asRefresh.status).to.equal(401);
    expect(asRefresh.body.code).to.equal('authentication_failed');
  });

  it('refuses a token with a tampered payload or signature', async () => {
    const company = await buildCompany();
    const [header, payload, signature] = company.token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, sub: '00000000-0000-4000-8000-000000000000' })).toString('base64url');
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
    expect((await get('/api/v1/users/', { token: `${header}.${forgedPayload}.${signature}` })).status).to.equal(401);
    expect((await get('/api/v1/users/', { token: `${header}.${payload}.${flipped}` })).status).to.equal(401);
  });

  it('refuses a token signed with another secret', async () => {
    const company = await buildCompany();
    const claims = decode(company.token);
    const forged = jwt.sign({ ...claims }, 'x'.repeat(64), { algorithm: 'HS256' });
    expect((await get('/api/v1/users/', { token: forged })).status).to.equal(401);
  });

  it('refuses an unsigned token (alg: none), for access and for refresh', async () => {
    const company = await buildCompany();
    const unsigned = (token: string) => {
      const claims = decode(token);
      const head = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      return `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    };
    expect((await get('/api/v1/users/', { token: unsigned(company.token) })).status).to.equal(401);
    expect((await post('/api/token/refresh/', { refresh: unsigned(company.refresh) })).status).to.equal(401);
  });

  it('refuses an expired access token', async () => {
    const company = await buildCompany();
    const claims = decode(company.token);
    const expired = jwt.sign({ ...claims, iat: claims.iat! - 1000, exp: claims.iat! - 100 }, system().jwtSecret, { algorithm: 'HS256' });
    const res = await get('/api/v1/users/', { token: expired });
    expect(res.status).to.equal(401);
  });

  it('locks out a deactivated user: existing tokens, refresh and login all fail', async () => {
    const company = await buildCompany();
    const member = await buildUser(company);
    const refresh = (await post('/api/token/', { username: member.username, password: member.password })).body.refresh;
    expect((await patch(`/api/v1/users/${member.id}/`, { is_active: false }, { token: company.token })).status).to.equal(200);
    expect((await get('/api/v1/users/', { token: member.token })).status).to.equal(401);
    expect((await post('/api/token/refresh/', { refresh })).status).to.equal(401);
    expect((await post('/api/token/', { username: member.username, password: member.password })).status).to.equal(401);
  });

  it('answers 401 without a bearer token on a core endpoint, in the error shape', async () => {
    const res = await get('/api/v1/locations/');
    expect(res.status).to.equal(401);
    expect(res.body.code).to.equal('authentication_failed');
    expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
  });
});

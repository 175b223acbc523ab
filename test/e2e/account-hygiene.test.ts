/**
 * Account hygiene (docs/api/authentication.md "Passwords", "API keys"): weak passwords refused wherever a password is set,
 * expired API keys stay expired, and rotation refuses fields it does not take. Every refusal changes nothing.
 */
import path from 'node:path';
import { expect } from 'chai';
import { MIN_PASSWORD_SCORE } from '@pi/gateway';
import { del, get, patch, post } from '../support/api';
import { expectErrorShape, expectValidationError } from '../support/assertions';
import { buildApiKey, buildCompany, buildUser, logIn, unique } from '../support/builders';
import { testDatabaseUrl } from '../support/hooks';
import { ROOT, runToExit } from '../support/processes';
import { count, query } from '../support/sql';

const COMMON = ['password', '12345678', '        ', 'password123', 'Password1!', 'qwertyuiop', 'iloveyou2024', 'aaaaaaaaaaaa', 'abcdefgh'];

/** 400 validation_error naming password, with advice a person can act on. */
function expectWeakPassword(res: Parameters<typeof expectValidationError>[0], what: string) {
  expectValidationError(res, 'password');
  expect(res.body.details.password, what).to.match(/^password is too easy to guess: \S/);
}

describe(`passwords: a strength estimate of at least ${MIN_PASSWORD_SCORE} (zxcvbn-ts) wherever a password is set`, () => {
  it('registration refuses common passwords and the account’s own names, and creates nothing', async () => {
    const username = unique('weakling');
    const companyName = unique('Weak Co');
    const email = `${username}@example.com`;
    for (const password of [...COMMON, username, username.toUpperCase(), companyName, email, `${username}`.padEnd(10, '1')]) {
      const res = await post('/api/v1/register/', { company_name: companyName, username, password, email });
      expectWeakPassword(res, JSON.stringify(password));
    }
    expect(await count('SELECT count(*) FROM companies WHERE name = $1', [companyName])).to.equal(0);
    expect(await count('SELECT count(*) FROM users WHERE username = $1', [username])).to.equal(0);
    const ok = await post('/api/v1/register/', { company_name: companyName, username, password: 'correct horse battery staple', email });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(201);
  });

  it('user creation refuses them too (the new user’s name and the company’s name included), and creates no user', async () => {
    const company = await buildCompany();
    const username = unique('newbie');
    for (const password of [...COMMON, username, company.name, `${username}@example.com`]) {
      expectWeakPassword(
        await post('/api/v1/users/', { username, password, email: `${username}@example.com` }, { token: company.token }),
        JSON.stringify(password),
      );
    }
    expect(await count('SELECT count(*) FROM users WHERE username = $1', [username])).to.equal(0);
  });

  it('a password change refuses them, and the old password keeps working', async () => {
    const company = await buildCompany();
    const member = await buildUser(company);
    for (const password of [...COMMON, member.username, company.name]) {
      expectWeakPassword(await patch(`/api/v1/users/${member.id}/`, { password }, { token: company.token }), JSON.stringify(password));
    }
    // With other changes in the same request: nothing of it is applied.
    expectWeakPassword(
      await patch(`/api/v1/users/${member.id}/`, { password: 'password', role: 'admin', email: 'changed@example.com' }, { token: company.token }),
      'with a role',
    );
    const user = await get(`/api/v1/users/${member.id}/`, { token: company.token });
    expect(user.body).to.include({ role: 'member', email: null });
    expect((await logIn(member.username, member.password)).access).to.be.a('string');
    const changed = await patch(`/api/v1/users/${member.id}/`, { password: 'violet tugboat marmalade' }, { token: company.token });
    expect(changed.status).to.equal(200);
    expect((await logIn(member.username, 'violet tugboat marmalade')).access).to.be.a('string');
  });

  it('npm run admin -- create-company refuses a weak password piped in, naming password, and creates nothing', async function () {
    // Three runs of the command, each a process that loads the gateway and the strength estimator: 11-17 s on a
    // loaded 2-vCPU machine, over mocha's 20 s once.
    this.timeout(60_000);
    const name = unique('CLI Weak');
    const username = unique('cliweak');
    const admin = (password: string) =>
      runToExit(
        process.execPath,
        [path.join(ROOT, 'services/gateway/dist/src/cli/admin.js'), 'create-company', '--name', name, '--username', username, '--password-stdin'],
        {
          env: { PATH: process.env.PATH, DATABASE_URL: testDatabaseUrl(), PASSWORD_HASH_COST: '14' },
          input: `${password}\n`,
        },
      );
    for (const password of ['12345678', username]) {
      const res = await admin(password);
      expect(res.code, res.text).to.equal(1);
      expect(res.text).to.match(/^admin: .*password is too easy to guess/m);
    }
    expect(await count('SELECT count(*) FROM companies WHERE name = $1', [name])).to.equal(0);
    const ok = await admin('correct horse battery staple');
    expect(ok.code, ok.text).to.equal(0);
    expect(JSON.parse(ok.text).company.name).to.equal(name);
  });
});

describe('an expired API key stays expired', () => {
  async function expiredKey() {
    const company = await buildCompany();
    const key = await buildApiKey(company, { permissions: ['read'], expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    await query(`UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1`, [key.id]);
    expectErrorShape(await get('/api/v1/widget/locations/', { apiKey: key.key }), 401, 'authentication_failed');
    return { company, key };
  }

  it('PATCH cannot revive it (expires_at null or later) nor change anything else: 409 key_expired, the key unchanged', async () => {
    const { company, key } = await expiredKey();
    const before = (await get(`/api/v1/api-keys/${key.id}/`, { token: company.token })).body;
    const later = new Date(Date.now() + 30 * 86_400_000).toISOString();
    for (const body of [
      { expires_at: null },
      { expires_at: later },
      { name: 'renamed' },
      { permissions: ['read', 'write'] },
      { allowed_domains: ['example.com'] },
    ]) {
      const res = await patch(`/api/v1/api-keys/${key.id}/`, body, { token: company.token });
      expectErrorShape(res, 409, 'key_expired');
      expect(res.body.error).to.match(/create a new key/);
    }
    expect((await get(`/api/v1/api-keys/${key.id}/`, { token: company.token })).body).to.deep.equal(before);
    expectErrorShape(await get('/api/v1/widget/locations/', { apiKey: key.key }), 401, 'authentication_failed');
  });

  it('rotation is refused too (409 key_expired), and the key can still be revoked', async () => {
    const { company, key } = await expiredKey();
    expectErrorShape(await post(`/api/v1/api-keys/${key.id}/rotate/`, undefined, { token: company.token }), 409, 'key_expired');
    expect((await del(`/api/v1/api-keys/${key.id}/`, { token: company.token })).status).to.equal(204);
    expectErrorShape(await patch(`/api/v1/api-keys/${key.id}/`, { expires_at: null }, { token: company.token }), 409, 'key_revoked');
  });

  it('a key that has not expired yet can still have its expiry lifted', async () => {
    const company = await buildCompany();
    const key = await buildApiKey(company, { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    const res = await patch(`/api/v1/api-keys/${key.id}/`, { expires_at: null }, { token: company.token });
    expect(res.status).to.equal(200);
    expect(res.body.expires_at).to.equal(null);
  });
});

describe('POST /api/v1/api-keys/{id}/rotate/ takes no fields', () => {
  it('refuses unknown fields with 400 naming them, and keeps the old value working', async () => {
    const company = await buildCompany();
    for (const body of [{ foo: 1 }, { key: 'my-own-value' }, { expires_at: null, name: 'x' }, { api_key: 'pik_x' }]) {
      const res = await post(`/api/v1/api-keys/${company.apiKeyId}/rotate/`, body, { token: company.token });
      expectValidationError(res, ...Object.keys(body));
    }
    expectValidationError(await post(`/api/v1/api-keys/${company.apiKeyId}/rotate/`, ['not', 'an', 'object'], { token: company.token }), 'body');
    expect((await get('/api/v1/widget/locations/', { apiKey: company.apiKey })).status).to.equal(200);
    const rotated = await post(`/api/v1/api-keys/${company.apiKeyId}/rotate/`, {}, { token: company.token });
    expect(rotated.status).to.equal(200);
    expect((await post(`/api/v1/api-keys/${company.apiKeyId}/rotate/`, undefined, { token: company.token })).status).to.equal(200);
  });
});

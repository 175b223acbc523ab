/**
 * Company isolation (docs/api/conventions.md): a request that names another company's record answers 403 `access_denied`
 * with the same vague message everywhere and nothing of that record; an id that exists nowhere answers 404.
 * Lists never show another company's records, and a refused request changes nothing. Also: members are not
 * admins (403 `permission_denied` on user and key management).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { api, del, get, patch, post } from '../support/api';
import { expectAccessDenied, expectNotFound, expectPermissionDenied } from '../support/assertions';
import { TestCompany, buildApiKey, buildCompany, buildLocation, buildUser, logIn, unique } from '../support/builders';
import { count, query, row } from '../support/sql';

type Member = Awaited<ReturnType<typeof buildUser>>;

const readUser = (id: string) => row('SELECT company_id, username, email, role, is_active, password_hash, updated_at FROM users WHERE id = $1', [id]);
const readKey = (id: string) =>
  row('SELECT company_id, name, prefix, key_hash, permissions, allowed_domains, tier, expires_at, revoked_at, updated_at FROM api_keys WHERE id = $1', [id]);
const readLocation = (id: string) => row('SELECT company_id, name, type, parent_id, is_active, updated_at FROM locations WHERE id = $1', [id]);

/** Every id in a paginated list (page_size 500, so one page holds a test company's records). */
async function listedIds(path: string, token: string): Promise<string[]> {
  const res = await get(`${path}${path.includes('?') ? '&' : '?'}page_size=500`, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.next).to.equal(null);
  return res.body.results.map((r: { id: string }) => r.id);
}

/** A's key value still authenticates, and the widget answers with A's locations. */
async function expectKeyWorks(key: string) {
  const res = await get('/api/v1/widget/locations/', { apiKey: key });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.locations).to.be.an('array');
}

interface World {
  a: TestCompany;
  aMember: Member;
  b: TestCompany;
  bMember: Member;
}

async function twoCompanies(): Promise<World> {
  const a = await buildCompany();
  const b = await buildCompany();
  return { a, aMember: await buildUser(a), b, bMember: await buildUser(b) };
}

describe('company isolation: /api/v1/users/', () => {
  it("lists none of A's users to B's admin or B's member", async () => {
    const { a, aMember, b, bMember } = await twoCompanies();
    for (const token of [b.token, bMember.token]) {
      const ids = await listedIds('/api/v1/users/', token);
      expect(ids).to.have.members([b.admin.id, bMember.id]);
      expect(ids).not.to.include.oneOf([a.admin.id, aMember.id]);
    }
  });

  it("refuses a company_id filter on the user list instead of following it to A's users", async () => {
    const { a, b } = await twoCompanies();
    const res = await get(`/api/v1/users/?company_id=${a.id}`, { token: b.token });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('validation_error');
    expect(JSON.stringify(res.body)).not.to.include(a.admin.username);
  });

  it("answers 403 access_denied to B's admin and B's member reading A's users, with nothing of them in the answer", async () => {
    const { a, aMember, b, bMember } = await twoCompanies();
    for (const token of [b.token, bMember.token]) {
      for (const user of [a.admin, aMember]) {
        expectAccessDenied(await get(`/api/v1/users/${user.id}/`, { token }), [user.id, user.username, a.id, a.name]);
      }
    }
  });

  it("answers 403 access_denied to B's admin updating A's user, and leaves the user unchanged and able to log in", async () => {
    const { a, aMember, b } = await twoCompanies();
    const before = await readUser(aMember.id);
    const changes = [
      { role: 'admin' },
      { is_active: false },
      { email: 'hijacked@example.com' },
      { password: 'taken-over-password' },
      { role: 'admin', is_active: true, email: 'hijacked@example.com', password: 'taken-over-password' },
    ];
    for (const body of changes) {
      expectAccessDenied(await patch(`/api/v1/users/${aMember.id}/`, body, { token: b.token }), [aMember.id, aMember.username, a.id]);
    }
    expectAccessDenied(await patch(`/api/v1/users/${a.admin.id}/`, { role: 'member' }, { token: b.token }), [a.admin.id, a.admin.username]);
    expect(await readUser(aMember.id)).to.deep.equal(before);
    expect((await readUser(a.admin.id)).role).to.equal('admin');
    await logIn(aMember.username, aMember.password);
    expect((await post('/api/token/', { username: aMember.username, password: 'taken-over-password' })).status).to.equal(401);
  });

  it("answers 403 access_denied to B's admin deactivating A's user, and the user stays active", async () => {
    const { a, aMember, b } = await twoCompanies();
    const before = await readUser(aMember.id);
    for (const user of [aMember, a.admin]) {
      expectAccessDenied(await del(`/api/v1/users/${user.id}/`, { token: b.token }), [user.id, user.username, a.id]);
    }
    expect(await readUser(aMember.id)).to.deep.equal(before);
    expect((await readUser(a.admin.id)).is_active).to.equal(true);
    const me = await get('/api/v1/users/me/', { token: aMember.token });
    expect(me.status).to.equal(200);
    expect(me.body.is_active).to.equal(true);
    await logIn(aMember.username, aMember.password);
    await logIn(a.admin.username, a.admin.password);
  });

  it("answers 403 permission_denied to B's member updating or deactivating A's user (the role check comes first), changing nothing", async () => {
    const { aMember, bMember } = await twoCompanies();
    const before = await readUser(aMember.id);
    expectPermissionDenied(await patch(`/api/v1/users/${aMember.id}/`, { is_active: false }, { token: bMember.token }), [aMember.username]);
    expectPermissionDenied(await del(`/api/v1/users/${aMember.id}/`, { token: bMember.token }), [aMember.username]);
    expect(await readUser(aMember.id)).to.deep.equal(before);
  });

  it('answers 404 not_found for a user id that exists nowhere, to show that 403 is about other companies', async () => {
    const { b } = await twoCompanies();
    const nowhere = randomUUID();
    expectNotFound(await get(`/api/v1/users/${nowhere}/`, { token: b.token }));
    expectNotFound(await patch(`/api/v1/users/${nowhere}/`, { role: 'admin' }, { token: b.token }));
    expectNotFound(await del(`/api/v1/users/${nowhere}/`, { token: b.token }));
  });
});

describe('company isolation: /api/v1/api-keys/', () => {
  it("lists none of A's keys to B's admin, revoked ones included", async () => {
    const { a, b } = await twoCompanies();
    const aKey = await buildApiKey(a);
    const aRevoked = await buildApiKey(a);
    expect((await del(`/api/v1/api-keys/${aRevoked.id}/`, { token: a.token })).status).to.equal(204);
    const res = await get('/api/v1/api-keys/?include_revoked=true&page_size=500', { token: b.token });
    expect(res.status).to.equal(200);
    const ids = res.body.results.map((k: { id: string }) => k.id);
    expect(ids).to.deep.equal([b.apiKeyId]);
    expect(ids).not.to.include.oneOf([a.apiKeyId, aKey.id, aRevoked.id]);
    expect(JSON.stringify(res.body)).not.to.include(a.apiKey.slice(0, 12));
  });

  it("answers 403 access_denied to B's admin reading A's key, with nothing of it in the answer", async () => {
    const { a, b } = await twoCompanies();
    const key = await buildApiKey(a, { name: unique('secret_name') });
    const stored = await readKey(key.id);
    for (const id of [a.apiKeyId, key.id]) {
      expectAccessDenied(await get(`/api/v1/api-keys/${id}/`, { token: b.token }), [id, a.id, String(stored.prefix)]);
    }
    const widget = await readKey(a.apiKeyId);
    expectAccessDenied(await get(`/api/v1/api-keys/${a.apiKeyId}/`, { token: b.token }), [String(widget.prefix), 'Widget key']);
  });

  it("answers 403 access_denied to B's admin updating A's key, and the key keeps its name and still works", async () => {
    const { a, b } = await twoCompanies();
    const before = await readKey(a.apiKeyId);
    const changes = [
      { name: 'hijacked' },
      { permissions: ['read', 'write', 'delete'] },
      { permissions: ['delete'] },
      { allowed_domains: ['evil.example.com'] },
      { expires_at: new Date(Date.now() + 60_000).toISOString() },
    ];
    for (const body of changes) {
      expectAccessDenied(await patch(`/api/v1/api-keys/${a.apiKeyId}/`, body, { token: b.token }), [a.apiKeyId, a.id, String(before.prefix)]);
    }
    expect(await readKey(a.apiKeyId)).to.deep.equal(before);
    const mine = await get(`/api/v1/api-keys/${a.apiKeyId}/`, { token: a.token });
    expect(mine.status).to.equal(200);
    expect(mine.body.name).to.equal('Widget key');
    expect(mine.body.permissions).to.deep.equal(['read', 'write']);
    expect(mine.body.allowed_domains).to.deep.equal([]);
    await expectKeyWorks(a.apiKey);
  });

  it("answers 403 access_denied to B's admin rotating A's key, with no new value in the answer, and the old value still works", async () => {
    const { a, b } = await twoCompanies();
    const before = await readKey(a.apiKeyId);
    const res = await post(`/api/v1/api-keys/${a.apiKeyId}/rotate/`, undefined, { token: b.token });
    expectAccessDenied(res, [a.apiKeyId, a.id, String(before.prefix)]);
    expect(res.body).not.to.have.property('key');
    expect(await readKey(a.apiKeyId)).to.deep.equal(before);
    await expectKeyWorks(a.apiKey);
  });

  it("answers 403 access_denied to B's admin revoking A's key, and the key still works", async () => {
    const { a, b } = await twoCompanies();
    const extra = await buildApiKey(a, { permissions: ['read'] });
    for (const id of [a.apiKeyId, extra.id]) {
      const before = await readKey(id);
      expectAccessDenied(await del(`/api/v1/api-keys/${id}/`, { token: b.token }), [id, a.id]);
      expect(await readKey(id)).to.deep.equal(before);
      expect(before.revoked_at).to.equal(null);
    }
    await expectKeyWorks(a.apiKey);
    await expectKeyWorks(extra.key);
  });

  it('answers 404 not_found for a key id that exists nowhere, on read, update, rotate and revoke', async () => {
    const { b } = await twoCompanies();
    const nowhere = randomUUID();
    expectNotFound(await get(`/api/v1/api-keys/${nowhere}/`, { token: b.token }));
    expectNotFound(await patch(`/api/v1/api-keys/${nowhere}/`, { name: 'x' }, { token: b.token }));
    expectNotFound(await post(`/api/v1/api-keys/${nowhere}/rotate/`, undefined, { token: b.token }));
    expectNotFound(await del(`/api/v1/api-keys/${nowhere}/`, { token: b.token }));
  });

  it("answers 403 permission_denied to B's member on every call against A's keys, changing nothing", async () => {
    const { a, bMember } = await twoCompanies();
    const before = await readKey(a.apiKeyId);
    const path = `/api/v1/api-keys/${a.apiKeyId}/`;
    expectPermissionDenied(await get('/api/v1/api-keys/', { token: bMember.token }));
    expectPermissionDenied(await get(path, { token: bMember.token }), [String(before.prefix)]);
    expectPermissionDenied(await patch(path, { name: 'hijacked' }, { token: bMember.token }));
    expectPermissionDenied(await post(`${path}rotate/`, undefined, { token: bMember.token }));
    expectPermissionDenied(await del(path, { token: bMember.token }));
    expect(await readKey(a.apiKeyId)).to.deep.equal(before);
    await expectKeyWorks(a.apiKey);
  });
});

describe('company isolation: locations', () => {
  const systemLocationIds = async (company: TestCompany) =>
    (await query<{ id: string }>('SELECT id FROM locations WHERE company_id = $1 AND system_role IS NOT NULL', [company.id])).map((r) => r.id);

  it("answers 403 access_denied to B reading A's location (physical or system), with nothing of it in the answer", async () => {
    const { a, b, bMember } = await twoCompanies();
    const location = await buildLocation(a, unique('A_Warehouse'));
    for (const token of [b.token, bMember.token]) {
      expectAccessDenied(await get(`/api/v1/locations/${location.id}/`, { token }), [location.id, location.name, a.id]);
      for (const id of await systemLocationIds(a)) {
        expectAccessDenied(await get(`/api/v1/locations/${id}/`, { token }), [id, a.id, 'Inbound', 'Outbound']);
      }
    }
  });

  it("answers 403 access_denied to B updating A's location, and leaves it unchanged", async () => {
    const { a, b } = await twoCompanies();
    const location = await buildLocation(a, unique('A_Warehouse'));
    const bLocation = await buildLocation(b);
    const before = await readLocation(location.id);
    for (const body of [{ name: 'hijacked' }, { is_active: false }, { parent_id: bLocation.id }, { parent_id: null }]) {
      expectAccessDenied(await patch(`/api/v1/locations/${location.id}/`, body, { token: b.token }), [location.id, location.name, a.id]);
    }
    expect(await readLocation(location.id)).to.deep.equal(before);
  });

  it("answers 403 access_denied to B deactivating A's location, and it stays active in A's lists", async () => {
    const { a, b } = await twoCompanies();
    const location = await buildLocation(a, unique('A_Warehouse'));
    const before = await readLocation(location.id);
    expectAccessDenied(await del(`/api/v1/locations/${location.id}/`, { token: b.token }), [location.id, location.name, a.id]);
    expect(await readLocation(location.id)).to.deep.equal(before);
    const widget = await get('/api/v1/widget/locations/', { apiKey: a.apiKey });
    expect(widget.body.locations.map((l: { id: string }) => l.id)).to.include(location.id);
  });

  it("lists none of A's locations to B, in /api/v1/locations/ and with B's key on /api/v1/widget/locations/", async () => {
    const { a, b } = await twoCompanies();
    const aLocation = await buildLocation(a, unique('A_Warehouse'));
    const bLocation = await buildLocation(b, unique('B_Warehouse'));
    const aIds = [aLocation.id, ...(await systemLocationIds(a))];

    const listed = await listedIds('/api/v1/locations/', b.token);
    expect(listed).to.have.members([bLocation.id, ...(await systemLocationIds(b))]);
    expect(listed).not.to.include.oneOf(aIds);

    const widget = await get('/api/v1/widget/locations/', { apiKey: b.apiKey });
    expect(widget.status).to.equal(200);
    expect(widget.body.locations.map((l: { id: string }) => l.id)).to.deep.equal([bLocation.id]);
    expect(JSON.stringify(widget.body)).not.to.include(aLocation.name);
  });

  it("answers 403 access_denied to B creating a location under A's location, and creates nothing (dashboard and widget)", async () => {
    const { a, b } = await twoCompanies();
    const aLocation = await buildLocation(a, unique('A_Warehouse'));
    const name = unique('B_Shelf');
    const before = await count('SELECT count(*) FROM locations');
    const viaToken = await post('/api/v1/locations/', { name, type: 'SHELF', parent_id: aLocation.id }, { token: b.token });
    expectAccessDenied(viaToken, [aLocation.name, a.id]);
    const viaKey = await post('/api/v1/widget/create_location/', { name, type: 'SHELF', parent_id: aLocation.id }, { apiKey: b.apiKey });
    expectAccessDenied(viaKey, [aLocation.name, a.id]);
    expect(await count('SELECT count(*) FROM locations')).to.equal(before);
    expect(await count('SELECT count(*) FROM locations WHERE name = $1', [name])).to.equal(0);
  });

  it("answers 403 access_denied to B moving its own location under A's, and leaves B's location unchanged", async () => {
    const { a, b } = await twoCompanies();
    const aLocation = await buildLocation(a, unique('A_Warehouse'));
    const bLocation = await buildLocation(b);
    const before = await readLocation(bLocation.id);
    expectAccessDenied(await patch(`/api/v1/locations/${bLocation.id}/`, { parent_id: aLocation.id }, { token: b.token }), [aLocation.name, a.id]);
    expect(await readLocation(bLocation.id)).to.deep.equal(before);
  });

  it('answers 404 not_found for a location id that exists nowhere, in the path and as parent_id', async () => {
    const { b } = await twoCompanies();
    const nowhere = randomUUID();
    expectNotFound(await get(`/api/v1/locations/${nowhere}/`, { token: b.token }));
    expectNotFound(await patch(`/api/v1/locations/${nowhere}/`, { name: 'x' }, { token: b.token }));
    expectNotFound(await del(`/api/v1/locations/${nowhere}/`, { token: b.token }));
    const before = await count('SELECT count(*) FROM locations WHERE company_id = $1', [b.id]);
    expectNotFound(await post('/api/v1/locations/', { name: 'Shelf', type: 'SHELF', parent_id: nowhere }, { token: b.token }));
    expectNotFound(await post('/api/v1/widget/create_location/', { name: 'Shelf', type: 'SHELF', parent_id: nowhere }, { apiKey: b.apiKey }));
    expect(await count('SELECT count(*) FROM locations WHERE company_id = $1', [b.id])).to.equal(before);
  });
});

describe('members are not admins', () => {
  it('answers 403 permission_denied to a member creating, updating or deactivating users of their own company, changing nothing', async () => {
    const { a, aMember } = await twoCompanies();
    const other = await buildUser(a);
    const usersBefore = await count('SELECT count(*) FROM users WHERE company_id = $1', [a.id]);
    const otherBefore = await readUser(other.id);
    const adminBefore = await readUser(a.admin.id);
    const selfBefore = await readUser(aMember.id);

    expectPermissionDenied(await post('/api/v1/users/', { username: unique('user'), password: 'pw-long-enough' }, { token: aMember.token }));
    expectPermissionDenied(await post('/api/v1/users/', { username: unique('user'), password: 'pw-long-enough', role: 'admin' }, { token: aMember.token }));
    expectPermissionDenied(await patch(`/api/v1/users/${other.id}/`, { is_active: false }, { token: aMember.token }));
    expectPermissionDenied(await patch(`/api/v1/users/${a.admin.id}/`, { role: 'member' }, { token: aMember.token }));
    expectPermissionDenied(await patch(`/api/v1/users/${aMember.id}/`, { role: 'admin' }, { token: aMember.token }));
    expectPermissionDenied(await del(`/api/v1/users/${other.id}/`, { token: aMember.token }));
    expectPermissionDenied(await del(`/api/v1/users/${a.admin.id}/`, { token: aMember.token }));

    expect(await count('SELECT count(*) FROM users WHERE company_id = $1', [a.id])).to.equal(usersBefore);
    expect(await readUser(other.id)).to.deep.equal(otherBefore);
    expect(await readUser(a.admin.id)).to.deep.equal(adminBefore);
    expect(await readUser(aMember.id)).to.deep.equal(selfBefore);
    // Reading stays open to members: the refusal is about the role, not the company.
    expect((await get('/api/v1/users/', { token: aMember.token })).status).to.equal(200);
    expect((await get(`/api/v1/users/${other.id}/`, { token: aMember.token })).status).to.equal(200);
  });

  it('answers 403 permission_denied to a member on every /api/v1/api-keys/ call, with no key value or prefix in the answer', async () => {
    const { a, aMember } = await twoCompanies();
    const keysBefore = await count('SELECT count(*) FROM api_keys WHERE company_id = $1', [a.id]);
    const before = await readKey(a.apiKeyId);
    const path = `/api/v1/api-keys/${a.apiKeyId}/`;
    const calls: Array<[string, string, unknown]> = [
      ['GET', '/api/v1/api-keys/', undefined],
      ['POST', '/api/v1/api-keys/', { name: unique('key'), permissions: ['read', 'write', 'delete'] }],
      ['GET', path, undefined],
      ['PATCH', path, { permissions: ['read', 'write', 'delete'] }],
      ['POST', `${path}rotate/`, undefined],
      ['DELETE', path, undefined],
    ];
    for (const [method, url, body] of calls) {
      const res = await api(method, url, { token: aMember.token, body });
      expectPermissionDenied(res, [String(before.prefix)]);
      expect(res.body, `${method} ${url}`).not.to.have.property('key');
    }
    expect(await count('SELECT count(*) FROM api_keys WHERE company_id = $1', [a.id])).to.equal(keysBefore);
    expect(await readKey(a.apiKeyId)).to.deep.equal(before);
    await expectKeyWorks(a.apiKey);
  });
});

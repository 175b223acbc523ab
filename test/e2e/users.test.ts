import { expect } from 'chai';
import { del, get, patch, post } from '../support/api';
import { expectErrorShape } from '../support/assertions';
import { buildCompany, buildUser, unique } from '../support/builders';
import { holdLock, lineUpBehind } from '../support/held-lock';
import { count } from '../support/sql';
import { system } from '../support/hooks';

const sequelize = () => system().db.sequelize;

describe('/api/v1/register/', () => {
  it('creates the company, its admin, its two VIRTUAL system locations and a working widget key (shown once)', async () => {
    const username = unique('founder');
    const res = await post('/api/v1/register/', { company_name: 'Acme Storage', username, password: 'a long password', email: 'f@example.com' });
    expect(res.status).to.equal(201);
    expect(res.body.company).to.include({ name: 'Acme Storage' });
    expect(res.body.user).to.include({ username, email: 'f@example.com', role: 'admin', is_active: true });
    expect(res.body.user).to.not.have.any.keys('password', 'password_hash');
    expect(res.body.api_key).to.include({ name: 'Widget key', tier: 'free', is_widget_key: true });
    expect(res.body.api_key.permissions).to.deep.equal(['read', 'write']);
    expect(res.body.api_key.key.startsWith(res.body.api_key.prefix)).to.equal(true);

    const token = (await post('/api/token/', { username, password: 'a long password' })).body.access;
    const locations = await get('/api/v1/locations/', { token });
    expect(locations.body.results.map((l: { name: string; type: string; is_system: boolean }) => [l.name, l.type, l.is_system])).to.deep.equal([
      ['Inbound', 'VIRTUAL', true],
      ['Outbound', 'VIRTUAL', true],
    ]);
    const widget = await get('/api/v1/widget/locations/', { apiKey: res.body.api_key.key });
    expect(widget.status).to.equal(200);
    expect(widget.body.locations).to.deep.equal([]);
    const keys = await get('/api/v1/api-keys/', { token });
    expect(keys.body.results[0]).to.not.have.property('key');
  });
});

describe('/api/v1/users/', () => {
  it('lets an admin create a member who can log in, and lists both', async () => {
    const company = await buildCompany();
    const member = await buildUser(company, { role: 'member' });
    const list = await get('/api/v1/users/', { token: company.token });
    expect(list.status).to.equal(200);
    expect(list.body.count).to.equal(2);
    expect(list.body.results.map((u: { username: string }) => u.username)).to.have.members([company.admin.username, member.username]);
    const me = await get('/api/v1/users/me/', { token: member.token });
    expect(me.body).to.include({ id: member.id, role: 'member' });
  });

  it('paginates with page and page_size', async () => {
    const company = await buildCompany();
    await buildUser(company);
    await buildUser(company);
    const first = await get('/api/v1/users/?page_size=2', { token: company.token });
    expect(first.body.count).to.equal(3);
    expect(first.body.results).to.have.length(2);
    expect(first.body.previous).to.equal(null);
    const next = new URL(first.body.next);
    expect(next.searchParams.get('page')).to.equal('2');
    const second = await get(`${next.pathname}${next.search}`, { token: company.token });
    expect(second.body.results).to.have.length(1);
    expect(second.body.next).to.equal(null);
    expect(second.body.previous).to.be.a('string');
  });

  it('retrieves and updates a user; a new password works and the old one no longer does', async () => {
    const company = await buildCompany();
    const member = await buildUser(company);
    const updated = await patch(
      `/api/v1/users/${member.id}/`,
      { email: 'new@example.com', role: 'admin', password: 'brand new secret' },
      { token: company.token },
    );
    expect(updated.status).to.equal(200);
    expect(updated.body).to.include({ email: 'new@example.com', role: 'admin' });
    expect((await get(`/api/v1/users/${member.id}/`, { token: company.token })).body.email).to.equal('new@example.com');
    expect((await post('/api/token/', { username: member.username, password: member.password })).status).to.equal(401);
    expect((await post('/api/token/', { username: member.username, password: 'brand new secret' })).status).to.equal(200);
  });

  it('deactivates with DELETE (204) and keeps the user visible as inactive', async () => {
    const company = await buildCompany();
    const member = await buildUser(company);
    expect((await del(`/api/v1/users/${member.id}/`, { token: company.token })).status).to.equal(204);
    const res = await get(`/api/v1/users/${member.id}/`, { token: company.token });
    expect(res.body.is_active).to.equal(false);
  });

  it('refuses to remove the last active admin (409 last_admin) and allows it once another admin exists', async () => {
    const company = await buildCompany();
    const demote = await patch(`/api/v1/users/${company.admin.id}/`, { role: 'member' }, { token: company.token });
    expect(demote.status).to.equal(409);
    expect(demote.body.code).to.equal('last_admin');
    expect((await del(`/api/v1/users/${company.admin.id}/`, { token: company.token })).status).to.equal(409);
    const other = await buildUser(company, { role: 'admin' });
    expect((await del(`/api/v1/users/${company.admin.id}/`, { token: other.token })).status).to.equal(204);
  });

  it('names is_active when deactivating the last active admin is refused, and role when demoting them is', async () => {
    const company = await buildCompany();
    const deactivate = await patch(`/api/v1/users/${company.admin.id}/`, { is_active: false }, { token: company.token });
    expectErrorShape(deactivate, 409, 'last_admin');
    expect(deactivate.body.details).to.have.all.keys('is_active');
    const demote = await patch(`/api/v1/users/${company.admin.id}/`, { role: 'viewer' }, { token: company.token });
    expect(demote.body.details).to.have.all.keys('role');
  });

  it('keeps one active admin when two admins demote each other at the same moment: one 200, one 409, never a deadlock', async () => {
    const company = await buildCompany();
    const other = await buildUser(company, { role: 'admin' });
    // Hold the other admin's row so that both demotions are inside their transactions before either can finish.
    const lock = await holdLock('SELECT id FROM users WHERE id = $1 FOR UPDATE', [other.id]);
    // The first waits on that row; the second, sent then, holds its own row and wants the other's too.
    const answers = await lineUpBehind(lock, [
      () => patch(`/api/v1/users/${other.id}/`, { role: 'viewer' }, { token: company.token }),
      () => patch(`/api/v1/users/${company.admin.id}/`, { role: 'viewer' }, { token: other.token }),
    ]);
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses, JSON.stringify(answers.map((res) => res.body))).to.deep.equal([200, 409]);
    expectErrorShape(
      answers.find((res) => res.status === 409)!,
      409,
      'last_admin',
    );
    const admins = await count("SELECT count(*) FROM users WHERE company_id = $1 AND role = 'admin' AND is_active", [company.id]);
    expect(admins).to.equal(1);
  });

  it('never deadlocks when a user is promoted between two changes that can take an admin away (both answered, one active admin at least)', async () => {
    const company = await buildCompany();
    // The order the old code locked in depended on whether the user was an admin as each change read the admins.
    let member = await buildUser(company);
    while (member.id > company.admin.id) member = await buildUser(company);
    const lock = await holdLock('SELECT id FROM users WHERE id = $1 FOR UPDATE', [company.admin.id]);
    const changes: ReturnType<typeof patch>[] = [];
    try {
      // Reads the admins while the user is a member, then waits on the admin's row.
      changes.push(patch(`/api/v1/users/${member.id}/`, { is_active: false }, { token: company.token }));
      await lock.waitForWaiters(1);
      // The user becomes an admin meanwhile, unless the change above holds their row (it then waits its turn).
      await sequelize()
        .transaction(async (transaction) => {
          await sequelize().query("SET LOCAL lock_timeout = '300ms'", { transaction });
          await sequelize().query(`UPDATE users SET role = 'admin' WHERE id = $1`, { bind: [member.id], transaction });
        })
        .catch(() => undefined);
      // Reads the admins with the user among them.
      changes.push(patch(`/api/v1/users/${member.id}/`, { role: 'member' }, { token: company.token }));
      await lock.waitForWaiters(2);
    } finally {
      await lock.release();
    }
    const answers = await Promise.all(changes);
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).to.be.below(500);
    expect(await count("SELECT count(*) FROM users WHERE company_id = $1 AND role = 'admin' AND is_active", [company.id])).to.be.at.least(1);
  });

  it('refuses a username that exists in any company, whatever its case (409 already_exists)', async () => {
    const company = await buildCompany();
    const other = await buildCompany();
    const res = await post('/api/v1/users/', { username: company.admin.username.toUpperCase(), password: 'pw-long-enough' }, { token: other.token });
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('already_exists');
    expect(res.body.details).to.have.property('username');
  });

  it('lets members read users but not create, change or deactivate them (403 permission_denied)', async () => {
    const company = await buildCompany();
    const member = await buildUser(company);
    expect((await get('/api/v1/users/', { token: member.token })).status).to.equal(200);
    const attempts = [
      await post('/api/v1/users/', { username: unique('x'), password: 'password123' }, { token: member.token }),
      await patch(`/api/v1/users/${company.admin.id}/`, { role: 'member' }, { token: member.token }),
      await del(`/api/v1/users/${company.admin.id}/`, { token: member.token }),
    ];
    for (const res of attempts) {
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('permission_denied');
    }
    expect((await get(`/api/v1/users/${company.admin.id}/`, { token: company.token })).body).to.include({ role: 'admin', is_active: true });
  });
});

describe('/api/v1/api-keys/', () => {
  it('creates a key whose value is shown once, then lists and retrieves it without the value', async () => {
    const company = await buildCompany();
    const created = await post(
      '/api/v1/api-keys/',
      { name: 'Shop sync', permissions: ['read', 'write'], allowed_domains: ['https://shop.example.com'], expires_at: '2099-01-01T00:00:00Z' },
      { token: company.token },
    );
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ name: 'Shop sync', tier: 'free', is_widget_key: false, usage_count: 0 });
    expect(created.body.key).to.match(/^pik_[A-Za-z0-9_-]{40}$/);
    expect(created.body.expires_at).to.equal('2099-01-01T00:00:00.000Z');
    const one = await get(`/api/v1/api-keys/${created.body.id}/`, { token: company.token });
    expect(one.body).to.not.have.property('key');
    expect(one.body.prefix).to.equal(created.body.key.slice(0, 12));
    const list = await get('/api/v1/api-keys/', { token: company.token });
    expect(list.body.count).to.equal(2);
    for (const k of list.body.results) expect(k).to.not.have.property('key');
  });

  it('updates name, permissions, allowed_domains and expiry', async () => {
    const company = await buildCompany();
    const id = (await post('/api/v1/api-keys/', { name: 'k' }, { token: company.token })).body.id;
    const res = await patch(
      `/api/v1/api-keys/${id}/`,
      { name: 'renamed', permissions: ['read', 'delete'], allowed_domains: ['*.example.com'], expires_at: null },
      { token: company.token },
    );
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ name: 'renamed', expires_at: null });
    expect(res.body.permissions).to.deep.equal(['read', 'delete']);
    expect(res.body.allowed_domains).to.deep.equal(['*.example.com']);
  });

  it('revokes with DELETE: gone from the list, listed with include_revoked, and refuses further changes (409)', async () => {
    const company = await buildCompany();
    const id = (await post('/api/v1/api-keys/', { name: 'short-lived' }, { token: company.token })).body.id;
    expect((await del(`/api/v1/api-keys/${id}/`, { token: company.token })).status).to.equal(204);
    const active = await get('/api/v1/api-keys/', { token: company.token });
    expect(active.body.results.map((k: { id: string }) => k.id)).to.not.include(id);
    const all = await get('/api/v1/api-keys/?include_revoked=true', { token: company.token });
    expect(all.body.results.find((k: { id: string }) => k.id === id).revoked_at).to.be.a('string');
    const rotate = await post(`/api/v1/api-keys/${id}/rotate/`, undefined, { token: company.token });
    expect(rotate.status).to.equal(409);
    expect(rotate.body.code).to.equal('key_revoked');
  });
});

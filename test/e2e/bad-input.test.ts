/**
 * Bad input at the public edge: every malformed request is refused with 400 `validation_error` naming the
 * offending field, in the error shape, and changes nothing in the database. Also body limits, malformed JSON,
 * unknown paths, closed registration and taken usernames.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { api, get, patch, post } from '../support/api';
import { BadCase, expectErrorShape, expectNotFound, expectValidationError } from '../support/assertions';
import { TestCompany, buildApiKey, buildCompany, buildLocation, buildUser, omit, unique } from '../support/builders';
import { system } from '../support/hooks';
import { count, row } from '../support/sql';

const long = (n: number) => 'x'.repeat(n);
const PAST = '2020-01-01T00:00:00.000Z';
const randomUuid = () => randomUUID();

describe('POST /api/v1/register/ with bad input', () => {
  const valid = () => {
    const username = unique('reg');
    return { company_name: unique('Company'), username, password: 'pw-long-enough', email: `${username}@example.com` };
  };
  const without = (key: string) => omit(valid(), key);
  const cases: BadCase[] = [
    { when: 'company_name is missing', body: without('company_name'), fields: ['company_name'] },
    { when: 'username is missing', body: without('username'), fields: ['username'] },
    { when: 'password is missing', body: without('password'), fields: ['password'] },
    { when: 'the body is empty', body: {}, fields: ['company_name', 'username', 'password'] },
    { when: 'company_name is a number', body: { ...valid(), company_name: 42 }, fields: ['company_name'] },
    { when: 'username is a number', body: { ...valid(), username: 12345 }, fields: ['username'] },
    { when: 'password is an array', body: { ...valid(), password: ['pw-long-enough'] }, fields: ['password'] },
    { when: 'email is a number', body: { ...valid(), email: 7 }, fields: ['email'] },
    { when: 'company_name is 201 characters long', body: { ...valid(), company_name: long(201) }, fields: ['company_name'] },
    { when: 'company_name is only blanks', body: { ...valid(), company_name: '   ' }, fields: ['company_name'] },
    { when: 'username is 151 characters long', body: { ...valid(), username: long(151) }, fields: ['username'] },
    { when: 'username is 2 characters long', body: { ...valid(), username: 'ab' }, fields: ['username'] },
    { when: 'username contains a space and a !', body: { ...valid(), username: 'bad name!' }, fields: ['username'] },
    { when: 'password is 7 characters long', body: { ...valid(), password: 'seven77' }, fields: ['password'] },
    { when: 'password is 129 characters long', body: { ...valid(), password: long(129) }, fields: ['password'] },
    { when: 'email is not an email address', body: { ...valid(), email: 'not-an-email' }, fields: ['email'] },
    { when: 'an unknown field (role) is sent', body: { ...valid(), role: 'admin' }, fields: ['role'] },
    { when: 'an unknown field (tier) is sent', body: { ...valid(), tier: 'premium' }, fields: ['tier'] },
    { when: 'the body is a JSON array', body: [valid()], fields: ['body'] },
  ];

  for (const c of cases) {
    it(`answers 400 naming ${c.fields.join(', ')} when ${c.when}, and creates no company, user or key`, async () => {
      const before = {
        companies: await count('SELECT count(*) FROM companies'),
        users: await count('SELECT count(*) FROM users'),
        keys: await count('SELECT count(*) FROM api_keys'),
        locations: await count('SELECT count(*) FROM locations'),
      };
      const res = await post('/api/v1/register/', c.body);
      expectValidationError(res, ...c.fields);
      expect({
        companies: await count('SELECT count(*) FROM companies'),
        users: await count('SELECT count(*) FROM users'),
        keys: await count('SELECT count(*) FROM api_keys'),
        locations: await count('SELECT count(*) FROM locations'),
      }).to.deep.equal(before);
    });
  }

  it('answers 409 already_exists naming username when the username is taken (in another case), and creates no company', async () => {
    const existing = await buildCompany();
    const companiesBefore = await count('SELECT count(*) FROM companies');
    const usersBefore = await count('SELECT count(*) FROM users');
    const keysBefore = await count('SELECT count(*) FROM api_keys');
    const name = unique('Company');
    for (const username of [existing.admin.username, existing.admin.username.toUpperCase()]) {
      const res = await post('/api/v1/register/', { company_name: name, username, password: 'pw-long-enough' });
      expectErrorShape(res, 409, 'already_exists');
      expect(res.body.details).to.have.all.keys('username');
    }
    expect(await count('SELECT count(*) FROM companies')).to.equal(companiesBefore);
    expect(await count('SELECT count(*) FROM companies WHERE name = $1', [name])).to.equal(0);
    expect(await count('SELECT count(*) FROM users')).to.equal(usersBefore);
    expect(await count('SELECT count(*) FROM api_keys')).to.equal(keysBefore);
  });

  it('answers 403 registration_closed when registration is closed, and creates nothing', async () => {
    const closed = await system().startGateway({ REGISTRATION_OPEN: 'false' });
    try {
      const companiesBefore = await count('SELECT count(*) FROM companies');
      const usersBefore = await count('SELECT count(*) FROM users');
      const body = valid();
      const res = await post('/api/v1/register/', body, { baseUrl: closed.url });
      expectErrorShape(res, 403, 'registration_closed');
      expect(await count('SELECT count(*) FROM companies')).to.equal(companiesBefore);
      expect(await count('SELECT count(*) FROM users')).to.equal(usersBefore);
      expect(await count('SELECT count(*) FROM companies WHERE name = $1', [body.company_name])).to.equal(0);
      const login = await post('/api/token/', { username: body.username, password: body.password }, { baseUrl: closed.url });
      expect(login.status).to.equal(401);
    } finally {
      await closed.close();
    }
  });
});

describe('POST /api/v1/users/ with bad input', () => {
  const valid = () => ({ username: unique('user'), password: 'pw-long-enough', role: 'member' });
  const without = (key: string) => omit(valid(), key);
  const cases: BadCase[] = [
    { when: 'username is missing', body: without('username'), fields: ['username'] },
    { when: 'password is missing', body: without('password'), fields: ['password'] },
    { when: 'the body is empty', body: {}, fields: ['username', 'password'] },
    { when: 'username is a number', body: { ...valid(), username: 123456 }, fields: ['username'] },
    { when: 'password is a number', body: { ...valid(), password: 12345678 }, fields: ['password'] },
    { when: 'role is an array', body: { ...valid(), role: ['admin'] }, fields: ['role'] },
    { when: 'username is 151 characters long', body: { ...valid(), username: long(151) }, fields: ['username'] },
    { when: 'password is 7 characters long', body: { ...valid(), password: 'seven77' }, fields: ['password'] },
    { when: 'email is not an email address', body: { ...valid(), email: 'user@@example' }, fields: ['email'] },
    { when: 'role is not admin or member', body: { ...valid(), role: 'owner' }, fields: ['role'] },
    { when: 'an unknown field (is_active) is sent', body: { ...valid(), is_active: false }, fields: ['is_active'] },
    { when: 'an unknown field (company_id) is sent', body: { ...valid(), company_id: randomUuid() }, fields: ['company_id'] },
  ];

  for (const c of cases) {
    it(`answers 400 naming ${c.fields.join(', ')} when ${c.when}, and creates no user`, async () => {
      const company = await buildCompany();
      const before = await count('SELECT count(*) FROM users');
      const res = await post('/api/v1/users/', c.body, { token: company.token });
      expectValidationError(res, ...c.fields);
      expect(await count('SELECT count(*) FROM users')).to.equal(before);
      expect(await count('SELECT count(*) FROM users WHERE company_id = $1', [company.id])).to.equal(1);
    });
  }

  it('answers 409 already_exists naming username when the username is taken in any case, and creates no user', async () => {
    const company = await buildCompany();
    const other = await buildCompany();
    const before = await count('SELECT count(*) FROM users');
    for (const username of [other.admin.username, other.admin.username.toUpperCase()]) {
      const res = await post('/api/v1/users/', { username, password: 'pw-long-enough' }, { token: company.token });
      expectErrorShape(res, 409, 'already_exists');
      expect(res.body.details).to.have.all.keys('username');
    }
    expect(await count('SELECT count(*) FROM users')).to.equal(before);
  });
});

describe('PATCH /api/v1/users/{id}/ with bad input', () => {
  const readUser = (id: string) => row('SELECT username, email, role, is_active, password_hash, updated_at FROM users WHERE id = $1', [id]);

  const cases: BadCase[] = [
    { when: 'the body is empty', body: {}, fields: ['body'] },
    { when: 'email is not an email address', body: { email: 'nope' }, fields: ['email'] },
    { when: 'email is a number', body: { email: 5 }, fields: ['email'] },
    { when: 'password is 7 characters long', body: { password: 'seven77' }, fields: ['password'] },
    { when: 'password is a number', body: { password: 123456789 }, fields: ['password'] },
    { when: 'role is not admin or member', body: { role: 'superuser' }, fields: ['role'] },
    { when: 'is_active is not a boolean', body: { is_active: 'maybe' }, fields: ['is_active'] },
    { when: 'an unknown field (username) is sent', body: { username: 'renamed_user' }, fields: ['username'] },
    { when: 'an unknown field (company_id) is sent', body: { company_id: randomUuid() }, fields: ['company_id'] },
    { when: 'one field is valid and another is not', body: { email: 'changed@example.com', role: 'boss' }, fields: ['role'] },
  ];

  for (const c of cases) {
    it(`answers 400 naming ${c.fields.join(', ')} when ${c.when}, and leaves the user unchanged`, async () => {
      const company = await buildCompany();
      const member = await buildUser(company);
      const before = await readUser(member.id);
      const res = await patch(`/api/v1/users/${member.id}/`, c.body, { token: company.token });
      expectValidationError(res, ...c.fields);
      expect(await readUser(member.id)).to.deep.equal(before);
    });
  }

  it('answers 400 naming id for a malformed UUID in the path', async () => {
    const company = await buildCompany();
    const res = await patch('/api/v1/users/not-a-uuid/', { role: 'admin' }, { token: company.token });
    expectValidationError(res, 'id');
    expect(res.body.details).to.have.all.keys('id');
  });
});

describe('POST /api/v1/api-keys/ with bad input', () => {
  const valid = () => ({ name: unique('key'), permissions: ['read'] });
  const cases: BadCase[] = [
    { when: 'name is missing', body: { permissions: ['read'] }, fields: ['name'] },
    { when: 'the body is empty', body: {}, fields: ['name'] },
    { when: 'name is a number', body: { ...valid(), name: 100 }, fields: ['name'] },
    { when: 'name is only blanks', body: { ...valid(), name: '   ' }, fields: ['name'] },
    { when: 'name is 101 characters long', body: { ...valid(), name: long(101) }, fields: ['name'] },
    { when: 'permissions is a string instead of an array', body: { ...valid(), permissions: 'read' }, fields: ['permissions'] },
    { when: 'permissions is empty', body: { ...valid(), permissions: [] }, fields: ['permissions'] },
    { when: "permissions contains 'admin'", body: { ...valid(), permissions: ['admin'] }, fields: ['permissions.0'] },
    { when: 'allowed_domains is a string instead of an array', body: { ...valid(), allowed_domains: 'example.com' }, fields: ['allowed_domains'] },
    { when: "allowed_domains contains 'not a domain!'", body: { ...valid(), allowed_domains: ['not a domain!'] }, fields: ['allowed_domains.0'] },
    { when: 'allowed_domains contains a javascript: URL', body: { ...valid(), allowed_domains: ['javascript://example.com'] }, fields: ['allowed_domains.0'] },
    { when: 'expires_at is in the past', body: { ...valid(), expires_at: PAST }, fields: ['expires_at'] },
    { when: 'expires_at is not a date', body: { ...valid(), expires_at: 'tomorrow' }, fields: ['expires_at'] },
    { when: 'an unknown field (tier) is sent', body: { ...valid(), tier: 'premium' }, fields: ['tier'] },
    { when: 'an unknown field (is_widget_key) is sent', body: { ...valid(), is_widget_key: true }, fields: ['is_widget_key'] },
    { when: 'an unknown field (key) is sent', body: { ...valid(), key: 'my-chosen-key-value' }, fields: ['key'] },
  ];

  for (const c of cases) {
    it(`answers 400 naming ${c.fields.join(', ')} when ${c.when}, and creates no key`, async () => {
      const company = await buildCompany();
      const before = await count('SELECT count(*) FROM api_keys');
      const res = await post('/api/v1/api-keys/', c.body, { token: company.token });
      expectValidationError(res, ...c.fields);
      expect(await count('SELECT count(*) FROM api_keys')).to.equal(before);
      expect(await count('SELECT count(*) FROM api_keys WHERE company_id = $1', [company.id])).to.equal(1);
    });
  }
});

describe('PATCH /api/v1/api-keys/{id}/ with bad input', () => {
  const readKey = (id: string) =>
    row('SELECT name, prefix, key_hash, permissions, allowed_domains, tier, is_widget_key, expires_at, revoked_at, updated_at FROM api_keys WHERE id = $1', [
      id,
    ]);

  const cases: BadCase[] = [
    { when: 'the body is empty', body: {}, fields: ['body'] },
    { when: 'name is a number', body: { name: 7 }, fields: ['name'] },
    { when: 'name is 101 characters long', body: { name: long(101) }, fields: ['name'] },
    { when: 'permissions is a string instead of an array', body: { permissions: 'write' }, fields: ['permissions'] },
    { when: "permissions contains 'admin'", body: { permissions: ['admin'] }, fields: ['permissions.0'] },
    { when: "allowed_domains contains 'not a domain!'", body: { allowed_domains: ['not a domain!'] }, fields: ['allowed_domains.0'] },
    { when: 'expires_at is in the past', body: { expires_at: PAST }, fields: ['expires_at'] },
    { when: 'an unknown field (tier) is sent', body: { tier: 'premium' }, fields: ['tier'] },
    { when: 'an unknown field (revoked_at) is sent', body: { revoked_at: null }, fields: ['revoked_at'] },
    { when: 'one field is valid and another is not', body: { name: 'renamed', permissions: ['read', 'admin'] }, fields: ['permissions.1'] },
  ];

  for (const c of cases) {
    it(`answers 400 naming ${c.fields.join(', ')} when ${c.when}, and leaves the key unchanged`, async () => {
      const company = await buildCompany();
      const key = await buildApiKey(company, { name: 'original name' });
      const before = await readKey(key.id);
      const res = await patch(`/api/v1/api-keys/${key.id}/`, c.body, { token: company.token });
      expectValidationError(res, ...c.fields);
      expect(await readKey(key.id)).to.deep.equal(before);
    });
  }

  it('answers 400 naming id for a malformed UUID in the path', async () => {
    const company = await buildCompany();
    const res = await patch('/api/v1/api-keys/12345/', { name: 'renamed' }, { token: company.token });
    expectValidationError(res, 'id');
    expect(res.body.details).to.have.all.keys('id');
  });
});

/** The same bad location bodies, for the dashboard endpoint (JWT) and the widget endpoint (API key). */
const badLocationCases = (): BadCase[] => {
  const name = unique('Warehouse');
  return [
    { when: 'name is missing', body: { type: 'WAREHOUSE' }, fields: ['name'] },
    { when: 'type is missing', body: { name }, fields: ['type'] },
    { when: 'the body is empty', body: {}, fields: ['name', 'type'] },
    { when: 'name is a number', body: { name: 12, type: 'WAREHOUSE' }, fields: ['name'] },
    { when: 'name is 201 characters long', body: { name: long(201), type: 'WAREHOUSE' }, fields: ['name'] },
    { when: 'type is an array', body: { name, type: ['WAREHOUSE'] }, fields: ['type'] },
    { when: 'type is not a known location type', body: { name, type: 'CASTLE' }, fields: ['type'] },
    { when: 'type is VIRTUAL', body: { name, type: 'VIRTUAL' }, fields: ['type'] },
    { when: 'parent_id is not a UUID', body: { name, type: 'SHELF', parent_id: 'not-a-uuid' }, fields: ['parent_id'] },
    { when: 'parent_id is a number', body: { name, type: 'SHELF', parent_id: 42 }, fields: ['parent_id'] },
    { when: 'an unknown field (company_id) is sent', body: { name, type: 'WAREHOUSE', company_id: randomUuid() }, fields: ['company_id'] },
    { when: 'an unknown field (system_role) is sent', body: { name, type: 'WAREHOUSE', system_role: 'INBOUND' }, fields: ['system_role'] },
  ];
};

const countLocations = (company: TestCompany) => count('SELECT count(*) FROM locations WHERE company_id = $1', [company.id]);

describe('POST /api/v1/locations/ with bad input', () => {
  for (const c of badLocationCases()) {
    it(`answers 400 naming ${c.fields.join(', ')} when ${c.when}, and creates no location`, async () => {
      const company = await buildCompany();
      const before = await count('SELECT count(*) FROM locations');
      const res = await post('/api/v1/locations/', c.body, { token: company.token });
      expectValidationError(res, ...c.fields);
      expect(await count('SELECT count(*) FROM locations')).to.equal(before);
      expect(await countLocations(company)).to.equal(2); // the two VIRTUAL system locations only
    });
  }

  it('answers 400 naming id for a malformed UUID in the path of PATCH, and leaves the locations unchanged', async () => {
    const company = await buildCompany();
    await buildLocation(company);
    const res = await patch('/api/v1/locations/abc/', { name: 'renamed' }, { token: company.token });
    expectValidationError(res, 'id');
    expect(await count('SELECT count(*) FROM locations WHERE company_id = $1 AND name = $2', [company.id, 'renamed'])).to.equal(0);
  });
});

describe('POST /api/v1/widget/create_location/ with bad input (API key in x-api-key)', () => {
  for (const c of badLocationCases()) {
    it(`answers 400 naming ${c.fields.join(', ')} when ${c.when}, and creates no location`, async () => {
      const company = await buildCompany();
      const before = await count('SELECT count(*) FROM locations');
      const res = await post('/api/v1/widget/create_location/', c.body, { apiKey: company.apiKey });
      expectValidationError(res, ...c.fields);
      expect(await count('SELECT count(*) FROM locations')).to.equal(before);
      expect(await countLocations(company)).to.equal(2);
    });
  }
});

describe('request bodies that are too large or not JSON', () => {
  const oversized = (field: string, extra: Record<string, unknown>) => JSON.stringify({ ...extra, [field]: long(1_200_000) });

  it('answers 413 payload_too_large for a 1.2 MB registration body, and creates no company', async () => {
    const before = await count('SELECT count(*) FROM companies');
    const username = unique('big');
    const res = await api('POST', '/api/v1/register/', {
      rawBody: oversized('company_name', { username, password: 'pw-long-enough' }),
    });
    expectErrorShape(res, 413, 'payload_too_large');
    expect(await count('SELECT count(*) FROM companies')).to.equal(before);
    expect(await count('SELECT count(*) FROM users WHERE lower(username) = lower($1)', [username])).to.equal(0);
  });

  it('answers 413 payload_too_large for a 1.2 MB location body (dashboard and widget), and creates no location', async () => {
    const company = await buildCompany();
    const viaToken = await api('POST', '/api/v1/locations/', { token: company.token, rawBody: oversized('name', { type: 'WAREHOUSE' }) });
    expectErrorShape(viaToken, 413, 'payload_too_large');
    const viaKey = await api('POST', '/api/v1/widget/create_location/', { apiKey: company.apiKey, rawBody: oversized('name', { type: 'WAREHOUSE' }) });
    expectErrorShape(viaKey, 413, 'payload_too_large');
    expect(await countLocations(company)).to.equal(2);
  });

  it('accepts a body just under the limit as far as size goes (the limit is 1 MB, not less)', async () => {
    const company = await buildCompany();
    const res = await api('POST', '/api/v1/locations/', { token: company.token, rawBody: JSON.stringify({ name: long(900_000), type: 'WAREHOUSE' }) });
    // Too long a name for the schema, but not too large for the parser: 400, not 413.
    expectValidationError(res, 'name');
  });

  it('answers 400 validation_error naming body for malformed JSON, and creates nothing', async () => {
    const company = await buildCompany();
    const companiesBefore = await count('SELECT count(*) FROM companies');
    const register = await api('POST', '/api/v1/register/', { rawBody: '{"company_name": "Acme", "username": ' });
    expectValidationError(register, 'body');
    expect(await count('SELECT count(*) FROM companies')).to.equal(companiesBefore);

    const location = await api('POST', '/api/v1/locations/', { token: company.token, rawBody: "{name: 'Main', type: 'WAREHOUSE'}" });
    expectValidationError(location, 'body');
    const widget = await api('POST', '/api/v1/widget/create_location/', { apiKey: company.apiKey, rawBody: '{"name": "Main",,}' });
    expectValidationError(widget, 'body');
    const key = await api('POST', '/api/v1/api-keys/', { token: company.token, rawBody: '{"name": "k"' });
    expectValidationError(key, 'body');
    expect(await countLocations(company)).to.equal(2);
    expect(await count('SELECT count(*) FROM api_keys WHERE company_id = $1', [company.id])).to.equal(1);
  });
});

describe('unknown paths', () => {
  it('answers 404 not_found in the error shape for /api/v1/nope/', async () => {
    const res = await get('/api/v1/nope/');
    expectNotFound(res);
    expect(res.body.details).to.deep.equal({});
  });

  it('answers 404 not_found for an unknown path with credentials and a body too', async () => {
    const company = await buildCompany();
    const res = await post('/api/v1/nope/', { name: 'x' }, { token: company.token });
    expectNotFound(res);
  });
});

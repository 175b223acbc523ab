/**
 * The read-only `viewer` role (docs/api/roles-and-audit-log.md). Driven by the OpenAPI document: every
 * documented write of every service that takes a bearer token answers 403 `permission_denied` to a viewer and
 * changes nothing of the company; every documented bearer read answers a viewer exactly what it answers a
 * member. A new write or read is covered the day it is documented.
 */
import { expect } from 'chai';
import { signInternalToken } from '@pi/common';
import { api, get, patch, post } from '../../support/api';
import { expectPermissionDenied } from '../../support/assertions';
import { TestCompany, buildApiKey, buildCompany, buildLocation, buildProduct, buildUser, generateCode, logIn, unique } from '../../support/builders';
import { system } from '../../support/hooks';
import { openApiDocument } from '../../support/openapi';
import { query } from '../../support/sql';
import { buildChannel, buildEvent } from '../monitor/helpers';

const WRITES = ['post', 'put', 'patch', 'delete'];

interface Operation {
  method: string;
  template: string;
}

function bearerOperations(methods: (m: string) => boolean): Operation[] {
  const found: Operation[] = [];
  for (const [template, item] of Object.entries<Record<string, any>>(openApiDocument().paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (methods(method) && (op.security ?? []).some((s: Record<string, unknown>) => 'bearerAuth' in s)) found.push({ method, template });
    }
  }
  return found;
}

/** A fingerprint of every row of the company in every table that has a company_id, and of the company itself. */
async function companyFingerprint(companyId: string): Promise<Record<string, string>> {
  const tables = await query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'company_id' ORDER BY table_name`,
  );
  const prints: Record<string, string> = {};
  for (const { table_name } of tables) {
    const [row] = await query<{ print: string }>(
      `SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') AS print FROM "${table_name}" t WHERE company_id = $1`,
      [companyId],
    );
    prints[table_name] = row.print;
  }
  const [company] = await query<{ print: string }>('SELECT md5(c::text) AS print FROM companies c WHERE id = $1', [companyId]);
  prints.companies = company.print;
  return prints;
}

describe('the viewer role', () => {
  let company: TestCompany;
  let viewer: Awaited<ReturnType<typeof buildUser>>;
  let member: Awaited<ReturnType<typeof buildUser>>;
  /** A record of the company for each `{id}` / `{code}` a documented path takes, by the path's prefix. */
  const ids: Record<string, string> = {};

  before(async function () {
    this.timeout(60_000);
    company = await buildCompany();
    viewer = await buildUser(company, { role: 'viewer' });
    member = await buildUser(company, { role: 'member' });
    const product = await buildProduct(company);
    const serialized = await buildProduct(company, { profile: 'SERIALIZED' });
    const batchProduct = await buildProduct(company, { profile: 'BATCH' });
    const location = await buildLocation(company);
    const auth = { token: company.token };
    const item = await post('/api/v1/items/', { product_id: serialized.id, location_id: location.id, serial_number: unique('SN') }, auth);
    const batch = await post('/api/v1/batches/', { product_id: batchProduct.id, code: unique('LOT') }, auth);
    const workOrder = await post('/api/v1/work-orders/', { number: unique('WO'), title: 'order', product_id: product.id }, auth);
    const rule = await post('/api/v1/monitoring-rules/', { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { max: 50 } }, auth);
    const channel = await buildChannel(company, { kind: 'EMAIL' });
    const event = await buildEvent(company, product);
    const key = await buildApiKey(company);
    Object.assign(ids, {
      '/api/v1/users/': member.id,
      '/api/v1/api-keys/': key.id,
      // A scan session is an API key minted by a scan; the viewer is refused before the record is looked up.
      '/api/v1/scan-sessions/': key.id,
      '/api/v1/product-models/': product.id,
      '/api/v1/locations/': location.id,
      '/api/v1/items/': item.body.id,
      '/api/v1/batches/': batch.body.id,
      '/api/v1/work-orders/': workOrder.body.id,
      '/api/v1/monitoring-rules/': rule.body.id,
      '/api/v1/notification-channels/': channel.id,
      '/api/v1/notification-deliveries/': channel.id,
      '/api/v1/events/': event.id,
      '/api/v1/qr-codes/': await generateCode(company),
    });
  });

  /** The template with its parameters replaced by the company's own records. */
  const pathOf = (template: string) =>
    template.replace(/\{(id|code)\}/g, () => {
      const prefix = Object.keys(ids).find((p) => template.startsWith(p));
      if (!prefix) throw new Error(`no record for ${template}`);
      return ids[prefix];
    });

  it('is a role users can be given, shown on the user', async () => {
    const me = await get('/api/v1/users/me/', { token: viewer.token });
    expect(me.body).to.include({ id: viewer.id, role: 'viewer' });
    const listed = await get('/api/v1/users/', { token: company.token });
    expect(listed.body.results.find((u: { id: string }) => u.id === viewer.id)).to.include({ role: 'viewer' });
    const changed = await patch(`/api/v1/users/${member.id}/`, { role: 'viewer' }, { token: company.token });
    expect(changed.status).to.equal(200);
    expect(changed.body.role).to.equal('viewer');
    expect((await patch(`/api/v1/users/${member.id}/`, { role: 'member' }, { token: company.token })).status).to.equal(200);
    // A role change revokes the tokens held (README "Revoking a user's tokens"): the member signs in again.
    member.token = (await logIn(member.username, member.password)).access;
  });

  it('answers 403 permission_denied to every documented write of every service, and changes nothing', async function () {
    this.timeout(120_000);
    const writes = bearerOperations((m) => WRITES.includes(m));
    expect(writes.length).to.be.greaterThan(30);
    expect([...new Set(writes.map((w) => w.template.split('/')[3]))]).to.include.members([
      'users',
      'api-keys',
      'product-models',
      'locations',
      'movements',
      'qr-codes',
      'monitoring-rules',
      'notification-channels',
      'events',
    ]);
    const before = await companyFingerprint(company.id);
    for (const { method, template } of writes) {
      // A body that would be valid for a create; the refusal comes before any validation.
      const res = await api(method.toUpperCase(), pathOf(template), {
        token: viewer.token,
        body: method === 'delete' ? undefined : { name: unique('viewer-was-here') },
      });
      expect(res.status, `${method.toUpperCase()} ${template}: ${JSON.stringify(res.body)}`).to.equal(403);
      expect(res.body.code, `${method.toUpperCase()} ${template}`).to.equal('permission_denied');
    }
    expect(await companyFingerprint(company.id)).to.deep.equal(before);
  });

  it('reads everything a member reads: every documented bearer read answers a viewer as it answers a member', async function () {
    this.timeout(120_000);
    const reads = bearerOperations((m) => m === 'get');
    expect(reads.length).to.be.greaterThan(20);
    for (const { template } of reads) {
      const path = pathOf(template);
      const asMember = await api('GET', path, { token: member.token });
      const asViewer = await api('GET', path, { token: viewer.token });
      expect(asViewer.status, `GET ${template}: ${JSON.stringify(asViewer.body).slice(0, 300)}`).to.equal(asMember.status);
      expect(asViewer.status, `GET ${template}`).to.be.below(500);
    }
    expect((await get('/api/v1/product-models/', { token: viewer.token })).body.count).to.equal(3);
    expect((await get(`/api/v1/stock/`, { token: viewer.token })).status).to.equal(200);
  });

  it('is refused by every service too, even with a token that claims write permissions (defence in depth)', async () => {
    const forged = signInternalToken(
      { companyId: company.id, principal: { kind: 'user', id: viewer.id }, permissions: ['read', 'write', 'delete'], role: 'viewer' },
      'req-viewer-test',
      system().internalJwtSecret,
    );
    const headers = { 'x-internal-auth': forged };
    const urls = system().serviceUrls;
    const attempts = [
      { baseUrl: urls.inventory, path: '/api/v1/locations/', body: { name: unique('Nope'), type: 'WAREHOUSE' } },
      { baseUrl: urls.qr, path: '/api/v1/qr-codes/', body: { count: 1 } },
      {
        baseUrl: urls.monitor,
        path: '/api/v1/monitoring-rules/',
        body: { product_id: ids['/api/v1/product-models/'], trigger_type: 'THRESHOLD', condition_config: { max: 1 } },
      },
    ];
    const before = await companyFingerprint(company.id);
    for (const a of attempts) {
      const res = await post(a.path, a.body, { baseUrl: a.baseUrl, headers, undocumented: true });
      expectPermissionDenied(res);
      const read = await get(a.path, { baseUrl: a.baseUrl, headers, undocumented: true });
      expect(read.status, a.path).to.equal(200);
    }
    expect(await companyFingerprint(company.id)).to.deep.equal(before);
  });

  it('cannot be the last admin: demoting the only admin to viewer answers 409 last_admin', async () => {
    const res = await patch(`/api/v1/users/${company.admin.id}/`, { role: 'viewer' }, { token: company.token });
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('last_admin');
  });

  it('takes effect at once: a member turned viewer is refused writes with the token they already hold', async () => {
    const other = await buildUser(company, { role: 'member' });
    expect((await post('/api/v1/locations/', { name: unique('Before'), type: 'WAREHOUSE' }, { token: other.token })).status).to.equal(201);
    expect((await patch(`/api/v1/users/${other.id}/`, { role: 'viewer' }, { token: company.token })).status).to.equal(200);
    // A role change revokes the old tokens (README "Revoking a user's tokens"); the new one is a viewer's.
    expect((await get('/api/v1/locations/', { token: other.token })).status).to.equal(401);
    const fresh = await logIn(other.username, other.password);
    expectPermissionDenied(await post('/api/v1/locations/', { name: unique('After'), type: 'WAREHOUSE' }, { token: fresh.access }));
    expect((await get('/api/v1/locations/', { token: fresh.access })).status).to.equal(200);
  });
});

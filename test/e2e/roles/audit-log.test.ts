/**
 * The audit log (docs/api/roles-and-audit-log.md): one entry per administrative change, naming who, what and
 * each changed field before and after; never a secret; written in the transaction of the change; listed by
 * GET /api/v1/audit-log/ for the company's admins only, with filters.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { AuditEntry, Identity, recordAudit } from '@pi/common';
import { registerCompany } from '@pi/gateway';
import { del, get, patch, post } from '../../support/api';
import { expectAccessDenied, expectErrorShape, expectNotFound, expectPermissionDenied, expectValidationError } from '../../support/assertions';
import { TestCompany, addStock, buildApiKey, buildCompany, buildLocation, buildProduct, buildUser, unique } from '../../support/builders';
import { system } from '../../support/hooks';
import { query } from '../../support/sql';
import { buildChannel } from '../monitor/helpers';

import { Entry, ok } from './audit-entries';

/** Every entry of the company about one record, oldest first. */
async function entriesOf(company: TestCompany, resourceId: string): Promise<Entry[]> {
  const body = ok(await get(`/api/v1/audit-log/?resource_id=${resourceId}&page_size=500`, { token: company.token }));
  return (body.results as Entry[]).reverse();
}

const actions = (entries: Entry[]) => entries.map((e) => e.action);

describe('GET /api/v1/audit-log/', () => {
  let company: TestCompany;
  /** Every secret value the changes below handle: none may appear in any entry. */
  const secrets: string[] = [];

  before(async () => {
    company = await buildCompany();
  });

  after(async () => {
    const all = ok(await get('/api/v1/audit-log/?page_size=500', { token: company.token }));
    const text = JSON.stringify(all);
    const hashes = await query<{ h: string }>(
      `SELECT password_hash AS h FROM users WHERE company_id = $1 UNION ALL SELECT key_hash FROM api_keys WHERE company_id = $1
       UNION ALL SELECT secret_encrypted FROM notification_channels WHERE company_id = $1`,
      [company.id],
    );
    for (const secret of [...secrets, ...hashes.map((r) => r.h)]) expect(text, 'a secret in the audit log').not.to.include(secret);
    const stored = await query<{ changes: unknown }>('SELECT changes FROM audit_log WHERE company_id = $1', [company.id]);
    for (const secret of secrets) expect(JSON.stringify(stored)).not.to.include(secret);
  });

  describe('users', () => {
    it('starts with the registration: the company, its admin and its widget key, made by that admin', async () => {
      for (const [id, type] of [
        [company.id, 'company'],
        [company.admin.id, 'user'],
        [company.apiKeyId, 'api_key'],
      ]) {
        const [entry] = await entriesOf(company, id);
        expect(entry).to.deep.include({ action: 'create', resource_type: type, actor: { type: 'user', id: company.admin.id } });
      }
      secrets.push(company.admin.password, company.apiKey);
    });

    it('records a creation, a change (the password only as "[changed]") and a deactivation, naming the admin who made them', async () => {
      const password = `pw-${randomUUID()}`;
      secrets.push(password);
      const user = ok(
        await post('/api/v1/users/', { username: unique('audited'), password, email: 'a@example.com', role: 'member' }, { token: company.token }),
        201,
      );
      const newPassword = `pw-${randomUUID()}`;
      secrets.push(newPassword);
      ok(await patch(`/api/v1/users/${user.id}/`, { role: 'viewer', password: newPassword }, { token: company.token }));
      ok(await del(`/api/v1/users/${user.id}/`, { token: company.token }), 204);
      const entries = await entriesOf(company, user.id);
      expect(actions(entries)).to.deep.equal(['create', 'update', 'deactivate']);
      for (const e of entries) expect(e).to.deep.include({ actor: { type: 'user', id: company.admin.id }, resource_type: 'user', resource_id: user.id });
      expect(entries[0].changes).to.deep.include({
        username: { before: null, after: user.username },
        role: { before: null, after: 'member' },
        password: { before: null, after: '[changed]' },
      });
      expect(entries[1].changes).to.deep.equal({ role: { before: 'member', after: 'viewer' }, password: { before: '[changed]', after: '[changed]' } });
      expect(entries[2].changes).to.deep.equal({ is_active: { before: true, after: false } });
    });

    it('writes nothing for a refused change (the last admin) or one that changes nothing', async () => {
      const before = (await entriesOf(company, company.admin.id)).length;
      expect((await patch(`/api/v1/users/${company.admin.id}/`, { role: 'viewer' }, { token: company.token })).status).to.equal(409);
      ok(await patch(`/api/v1/users/${company.admin.id}/`, { role: 'admin' }, { token: company.token }));
      expect((await entriesOf(company, company.admin.id)).length).to.equal(before);
    });
  });

  describe('API keys', () => {
    it('records creation, change, rotation and revocation, the value and its hash never', async () => {
      const created = ok(await post('/api/v1/api-keys/', { name: 'Audited key', permissions: ['read'] }, { token: company.token }), 201);
      secrets.push(created.key);
      ok(await patch(`/api/v1/api-keys/${created.id}/`, { name: 'Renamed key', permissions: ['read', 'write'] }, { token: company.token }));
      const rotated = ok(await post(`/api/v1/api-keys/${created.id}/rotate/`, {}, { token: company.token }));
      secrets.push(rotated.key);
      ok(await del(`/api/v1/api-keys/${created.id}/`, { token: company.token }), 204);
      const entries = await entriesOf(company, created.id);
      expect(actions(entries)).to.deep.equal(['create', 'update', 'rotate', 'revoke']);
      expect(entries[0].changes).to.deep.include({ name: { before: null, after: 'Audited key' }, key: { before: null, after: '[changed]' } });
      expect(entries[1].changes).to.deep.equal({
        name: { before: 'Audited key', after: 'Renamed key' },
        permissions: { before: ['read'], after: ['read', 'write'] },
      });
      expect(entries[2].changes.key).to.deep.equal({ before: '[changed]', after: '[changed]' });
      expect(entries[2].changes.prefix).to.deep.equal({ before: created.prefix, after: rotated.prefix });
      expect(entries[3].changes).to.have.keys('revoked_at');
    });
  });

  describe('notification channels', () => {
    it('records creation, change, secret rotation and deletion, the secret only as "[changed]"', async () => {
      const channel = await buildChannel(company, { name: 'Audited channel' });
      secrets.push(channel.secret);
      ok(await patch(`/api/v1/notification-channels/${channel.id}/`, { name: 'Renamed channel', max_attempts: 3 }, { token: company.token }));
      const rotated = ok(await post(`/api/v1/notification-channels/${channel.id}/rotate-secret/`, {}, { token: company.token }));
      secrets.push(rotated.secret);
      ok(await del(`/api/v1/notification-channels/${channel.id}/`, { token: company.token }), 204);
      const entries = await entriesOf(company, channel.id);
      expect(actions(entries)).to.deep.equal(['create', 'update', 'rotate_secret', 'delete']);
      expect(entries[0].changes).to.deep.include({ name: { before: null, after: 'Audited channel' }, secret: { before: null, after: '[changed]' } });
      expect(entries[1].changes).to.deep.equal({ name: { before: 'Audited channel', after: 'Renamed channel' }, max_attempts: { before: 5, after: 3 } });
      expect(entries[2].changes).to.deep.equal({ secret: { before: '[changed]', after: '[changed]' } });
      expect(entries[3].changes).to.deep.include({ name: { before: 'Renamed channel', after: null }, secret: { before: '[changed]', after: null } });
    });
  });

  describe('monitoring rules', () => {
    it('records creation, change and deletion with the condition before and after', async () => {
      const product = await buildProduct(company);
      const rule = ok(
        await post('/api/v1/monitoring-rules/', { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { min: 2 } }, { token: company.token }),
        201,
      );
      ok(await patch(`/api/v1/monitoring-rules/${rule.id}/`, { condition_config: { min: 5 }, severity: 'CRITICAL' }, { token: company.token }));
      ok(await del(`/api/v1/monitoring-rules/${rule.id}/`, { token: company.token }), 204);
      const entries = await entriesOf(company, rule.id);
      expect(actions(entries)).to.deep.equal(['create', 'update', 'delete']);
      expect(entries[0].resource_type).to.equal('monitoring_rule');
      expect(entries[1].changes).to.deep.include({ condition_config: { before: { min: 2 }, after: { min: 5 } } });
      expect(entries[1].changes.severity.after).to.equal('CRITICAL');
      expect(entries[2].changes.product_id).to.deep.equal({ before: product.id, after: null });
    });
  });

  describe('product models', () => {
    it('records creation, change and deletion, and each product an import creates', async () => {
      const product = await buildProduct(company, { name: 'Audited product' });
      ok(await patch(`/api/v1/product-models/${product.id}/`, { name: 'Renamed product' }, { token: company.token }));
      ok(await del(`/api/v1/product-models/${product.id}/`, { token: company.token }), 204);
      const entries = await entriesOf(company, product.id);
      expect(actions(entries)).to.deep.equal(['create', 'update', 'delete']);
      expect(entries[1].changes).to.deep.equal({ name: { before: 'Audited product', after: 'Renamed product' } });
      expect(entries[2].changes.sku).to.deep.equal({ before: product.sku, after: null });

      const sku = unique('IMP');
      const imported = ok(
        await post(
          '/api/v1/product-models/import/',
          { products: [{ sku, name: 'Imported', profile: 'STANDARD', engine_config: { engine_type: 'counter' } }] },
          { token: company.token },
        ),
        201,
      );
      const importedEntries = await entriesOf(company, imported.products[0].id);
      expect(actions(importedEntries)).to.deep.equal(['create']);
      expect(importedEntries[0].changes.sku).to.deep.equal({ before: null, after: sku });
    });

    it('writes nothing when the change is refused and rolled back (a product in use)', async () => {
      const product = await buildProduct(company);
      const location = await buildLocation(company);
      await addStock(company, product.id, location.id, 1);
      expect((await del(`/api/v1/product-models/${product.id}/`, { token: company.token })).status).to.equal(409);
      expect(actions(await entriesOf(company, product.id))).to.deep.equal(['create']);
    });
  });

  describe('locations', () => {
    it('records creation, change and deactivation; a location the widget creates names its API key', async () => {
      const location = await buildLocation(company, 'Audited place');
      ok(await patch(`/api/v1/locations/${location.id}/`, { name: 'Renamed place' }, { token: company.token }));
      ok(await del(`/api/v1/locations/${location.id}/`, { token: company.token }), 204);
      const entries = await entriesOf(company, location.id);
      expect(actions(entries)).to.deep.equal(['create', 'update', 'deactivate']);
      expect(entries[1].changes).to.deep.equal({ name: { before: 'Audited place', after: 'Renamed place' } });
      expect(entries[2].changes).to.deep.equal({ is_active: { before: true, after: false } });

      const widget = ok(await post('/api/v1/widget/create_location/', { name: unique('Widget place'), type: 'WAREHOUSE' }, { apiKey: company.apiKey }), 201);
      const [byKey] = await entriesOf(company, widget.location.id);
      expect(byKey.actor).to.deep.equal({ type: 'api_key', id: company.apiKeyId });
      const listed = ok(await get(`/api/v1/audit-log/?actor=${company.apiKeyId}`, { token: company.token }));
      expect(listed.results.map((e: Entry) => e.resource_id)).to.include(widget.location.id);
    });
  });

  describe('the writer', () => {
    it('writes in the transaction of the change: a rolled-back transaction leaves no entry', async () => {
      const resourceId = randomUUID();
      const identity: Identity = {
        companyId: company.id,
        principal: { kind: 'user', id: company.admin.id },
        permissions: ['read', 'write', 'delete'],
        role: 'admin',
      };
      const sequelize = system().db.sequelize;
      await sequelize
        .transaction(async (transaction) => {
          await recordAudit(transaction, company.id, identity, { action: 'create', resourceType: 'location', resourceId, after: { name: 'never' } });
          expect(await AuditEntry.count({ where: { resourceId }, transaction })).to.equal(1);
          throw new Error('roll back');
        })
        .catch((err: Error) => expect(err.message).to.equal('roll back'));
      expect(await AuditEntry.count({ where: { resourceId } })).to.equal(0);
    });
  });

  describe('the operator', () => {
    it('is named as the actor of a company created from the command line (npm run admin -- create-company)', async () => {
      const sequelize = system().db.sequelize;
      const password = `pw-${randomUUID()}`;
      const { company: made, user } = await registerCompany({ sequelize }, { companyName: unique('CLI company'), username: unique('cli'), password }, 14, {
        byOperator: true,
      });
      const rows = await AuditEntry.findAll({ where: { companyId: made.id }, raw: true });
      expect(rows.map((r) => [r.resourceType, r.actorType, r.actorId]).sort()).to.deep.equal([
        ['api_key', 'operator', null],
        ['company', 'operator', null],
        ['user', 'operator', null],
      ]);
      expect(rows.find((r) => r.resourceId === user.id)?.changes.password).to.deep.equal({ before: null, after: '[changed]' });
      expect(JSON.stringify(rows)).not.to.include(password);
    });
  });

  describe('filters and pages', () => {
    it('filters by resource type, actor and time, newest first, in pages', async () => {
      const start = new Date(Date.now() - 1000).toISOString();
      const actorUser = await buildUser(company, { role: 'admin' });
      const a = await buildLocation(company);
      const b = ok(await post('/api/v1/locations/', { name: unique('By other admin'), type: 'STORE' }, { token: actorUser.token }), 201);
      const byType = ok(await get(`/api/v1/audit-log/?resource_type=location&created_after=${encodeURIComponent(start)}`, { token: company.token }));
      expect(byType.results.every((e: Entry) => e.resource_type === 'location')).to.equal(true);
      expect(byType.results.map((e: Entry) => e.resource_id).slice(0, 2)).to.deep.equal([b.id, a.id]);
      const byActor = ok(await get(`/api/v1/audit-log/?actor=${actorUser.id}`, { token: company.token }));
      expect(byActor.results.map((e: Entry) => e.resource_id)).to.deep.equal([b.id]);
      const before = ok(await get(`/api/v1/audit-log/?created_before=${encodeURIComponent(start)}&resource_type=location`, { token: company.token }));
      expect(before.results.map((e: Entry) => e.resource_id)).not.to.include.members([a.id, b.id]);
      const first = ok(await get('/api/v1/audit-log/?page_size=1', { token: company.token }));
      expect(first.results).to.have.length(1);
      expect(first.count).to.be.greaterThan(1);
      expect(first.next).to.match(/page=2/);
      const second = ok(await get('/api/v1/audit-log/?page_size=1&page=2', { token: company.token }));
      expect(second.results[0].id).not.to.equal(first.results[0].id);
    });

    for (const [qs, field] of [
      ['resource_type=spaceship', 'resource_type'],
      ['resource_id=not-a-uuid', 'resource_id'],
      ['actor=42', 'actor'],
      ['created_after=yesterday', 'created_after'],
      ['created_before=2026-13-45', 'created_before'],
      ['created_after=2026-01-02T00:00:00Z&created_before=2026-01-01T00:00:00Z', 'created_before'],
      ['page_size=501', 'page_size'],
      ['page=0', 'page'],
      ['unknown=1', 'unknown'],
    ]) {
      it(`answers 400 naming ${field} for ?${qs}`, async () => {
        expectValidationError(await get(`/api/v1/audit-log/?${qs}`, { token: company.token }), field);
      });
    }
  });

  describe('who may read it', () => {
    it('answers 403 permission_denied to members and viewers, 401 to an API key and to no credentials', async () => {
      const member = await buildUser(company, { role: 'member' });
      const viewer = await buildUser(company, { role: 'viewer' });
      expectPermissionDenied(await get('/api/v1/audit-log/', { token: member.token }));
      expectPermissionDenied(await get('/api/v1/audit-log/', { token: viewer.token }));
      expectErrorShape(await get('/api/v1/audit-log/', { apiKey: company.apiKey }), 401, 'authentication_failed');
      expectErrorShape(await get('/api/v1/audit-log/'), 401, 'authentication_failed');
    });

    it("never shows another company's entries: B's log lacks A's, and A's ids in B's filters answer 403", async () => {
      const other = await buildCompany();
      const key = await buildApiKey(company, { name: unique('A key') });
      const own = ok(await get('/api/v1/audit-log/?page_size=500', { token: other.token }));
      const text = JSON.stringify(own);
      for (const id of [company.id, company.admin.id, key.id]) expect(text).not.to.include(id);
      expectAccessDenied(await get(`/api/v1/audit-log/?resource_id=${key.id}`, { token: other.token }), [key.id]);
      expectAccessDenied(await get(`/api/v1/audit-log/?actor=${company.admin.id}`, { token: other.token }), [company.admin.id]);
      expectNotFound(await get(`/api/v1/audit-log/?resource_id=${randomUUID()}`, { token: other.token }));
      expectNotFound(await get(`/api/v1/audit-log/?actor=${randomUUID()}`, { token: other.token }));
    });
  });
});

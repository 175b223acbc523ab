/**
 * Issue 17 on the audit log (docs/api/roles-and-audit-log.md): `ordering` on GET /api/v1/audit-log/ (the
 * convention of docs/api/ordering-and-search.md, an index per sort), and entries for changes to the company's
 * settings (PATCH /api/v1/scan-settings/) with each changed field before and after. Another company sees none
 * of them.
 */
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { get, patch } from '../../support/api';
import { expectValidationError } from '../../support/assertions';
import { TestCompany, buildCompany, buildLocation, buildProduct, buildUser } from '../../support/builders';
import { system } from '../../support/hooks';
import { query } from '../../support/sql';

import { listEntries, ok } from './audit-entries';

describe('GET /api/v1/audit-log/?ordering=', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
    await buildProduct(company);
    await buildLocation(company);
    await buildUser(company, { role: 'viewer' });
    ok(await patch('/api/v1/scan-settings/', { key_lifetime_seconds: 900 }, { token: company.token }));
  });

  it('is newest first by default, and oldest first with ordering=created_at (ties by id)', async () => {
    const byDefault = await listEntries(company);
    expect(byDefault.length).to.be.at.least(4);
    const newest = [...byDefault].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
    expect(byDefault.map((e) => e.id)).to.deep.equal(newest.map((e) => e.id));
    const oldest = await listEntries(company, '&ordering=created_at');
    expect(oldest.map((e) => e.id)).to.deep.equal([...newest].reverse().map((e) => e.id));
  });

  it('sorts by resource_type and by -action, ties by id in the direction of the last field', async () => {
    const byType = await listEntries(company, '&ordering=resource_type');
    const expected = [...byType].sort((a, b) => (a.resource_type < b.resource_type ? -1 : a.resource_type > b.resource_type ? 1 : a.id < b.id ? -1 : 1));
    expect(byType.map((e) => e.id)).to.deep.equal(expected.map((e) => e.id));
    expect(new Set(byType.map((e) => e.resource_type)).size).to.be.at.least(3);
    const byAction = await listEntries(company, '&ordering=-action');
    const expectedAction = [...byAction].sort((a, b) => (a.action > b.action ? -1 : a.action < b.action ? 1 : a.id > b.id ? -1 : 1));
    expect(byAction.map((e) => e.id)).to.deep.equal(expectedAction.map((e) => e.id));
  });

  it('answers 400 naming `ordering` for a field it cannot sort by, and for one named twice', async () => {
    const res = await get('/api/v1/audit-log/?ordering=changes', { token: company.token });
    expectValidationError(res, 'ordering');
    expect(res.body.details.ordering).to.include('changes').and.to.include('created_at, action, resource_type');
    expectValidationError(await get('/api/v1/audit-log/?ordering=action,-action', { token: company.token }), 'ordering');
  });

  it('has an index for each sort: EXPLAIN of each ordering reads audit_log by an index', async () => {
    const sequelize = system().db.sequelize;
    // One transaction, so that the settings and the EXPLAIN share a connection of the pool. With sorts and
    // sequential scans priced out, the plan reads an index in the asked order if one exists, whatever the
    // statistics say of this run's few rows (other suites write audit entries at the same time).
    await sequelize.transaction(async (transaction) => {
      await sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
      await sequelize.query('SET LOCAL enable_sort = off', { transaction });
      for (const [order, index] of [
        ['created_at DESC, id DESC', 'audit_log_company_created_idx'],
        ['action ASC, id ASC', 'audit_log_order_action_idx'],
        ['resource_type DESC, id DESC', 'audit_log_order_resource_type_idx'],
      ]) {
        const plan = await sequelize.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT * FROM audit_log WHERE company_id = $1 ORDER BY ${order} LIMIT 50`, {
          bind: [company.id],
          type: QueryTypes.SELECT,
          transaction,
        });
        const text = plan.map((r) => r['QUERY PLAN']).join('\n');
        expect(text, text).to.include(index);
        expect(text, text).not.to.match(/\bSort\b/);
      }
    });
  });
});

describe('audit entries for the company settings (PATCH /api/v1/scan-settings/)', () => {
  it('records who changed which setting, before and after; a change that changes nothing records nothing', async () => {
    const company = await buildCompany();
    const settings = ok(await get('/api/v1/scan-settings/', { token: company.token }));
    const otherPolicy = settings.policy === 'read' ? 'book' : 'read';
    ok(await patch('/api/v1/scan-settings/', { policy: otherPolicy, key_lifetime_seconds: settings.key_lifetime_seconds + 60 }, { token: company.token }));
    ok(await patch('/api/v1/scan-settings/', { policy: otherPolicy }, { token: company.token }));
    const entries = await listEntries(company, '&resource_type=company');
    const updates = entries.filter((e) => e.action === 'update');
    expect(updates).to.have.length(1);
    expect(updates[0]).to.deep.include({ actor: { type: 'user', id: company.admin.id }, resource_type: 'company', resource_id: company.id });
    expect(updates[0].changes).to.deep.equal({
      policy: { before: settings.policy, after: otherPolicy },
      key_lifetime_seconds: { before: settings.key_lifetime_seconds, after: settings.key_lifetime_seconds + 60 },
    });
  });

  it('writes nothing for a refused change (a member, bad input), and another company sees none of the entries', async () => {
    const company = await buildCompany();
    const member = await buildUser(company);
    expect((await patch('/api/v1/scan-settings/', { key_lifetime_seconds: 700 }, { token: member.token })).status).to.equal(403);
    expectValidationError(await patch('/api/v1/scan-settings/', { key_lifetime_seconds: -1 }, { token: company.token }), 'key_lifetime_seconds');
    expect(await query("SELECT id FROM audit_log WHERE company_id = $1 AND resource_type = 'company' AND action = 'update'", [company.id])).to.have.length(0);

    ok(await patch('/api/v1/scan-settings/', { key_lifetime_seconds: 700 }, { token: company.token }));
    const other = await buildCompany();
    const theirs = await listEntries(other);
    expect(theirs.filter((e) => e.resource_id === company.id)).to.have.length(0);
    expect(theirs.every((e) => e.resource_id !== company.admin.id)).to.equal(true);
    expect((await listEntries(other, '&resource_type=company')).map((e) => e.resource_id)).to.deep.equal([other.id]);
  });
});

import { expect } from 'chai';
import { SECRET_CHANGED, auditChanges, permissionsOfRole } from '../src';

describe('auditChanges (the audit log: what changed)', () => {
  it('lists only the fields that differ, with their values before and after', () => {
    expect(auditChanges({ name: 'a', is_active: true, tags: ['x'] }, { name: 'b', is_active: true, tags: ['x'] })).to.deep.equal({
      name: { before: 'a', after: 'b' },
    });
  });

  it('treats a creation as null before and a deletion as null after', () => {
    expect(auditChanges(null, { name: 'a' })).to.deep.equal({ name: { before: null, after: 'a' } });
    expect(auditChanges({ name: 'a' }, undefined)).to.deep.equal({ name: { before: 'a', after: null } });
  });

  it('compares dates by instant and nested values by content', () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(auditChanges({ expires_at: new Date(at), config: { a: 1 } }, { expires_at: new Date(at), config: { a: 1 } })).to.deep.equal({});
    expect(auditChanges({ config: { a: 1 } }, { config: { a: 2 } })).to.deep.equal({ config: { before: { a: 1 }, after: { a: 2 } } });
  });

  it('never carries a secret value: a changed secret is "[changed]", an unchanged one is left out', () => {
    const changes = auditChanges({ password: 'hash-one', name: 'n' }, { password: 'hash-two', name: 'n' }, ['password']);
    expect(changes).to.deep.equal({ password: { before: SECRET_CHANGED, after: SECRET_CHANGED } });
    expect(auditChanges(null, { password: 'hash' }, ['password'])).to.deep.equal({ password: { before: null, after: SECRET_CHANGED } });
    expect(auditChanges({ password: 'same' }, { password: 'same' }, ['password'])).to.deep.equal({});
  });
});

describe('permissionsOfRole', () => {
  it('gives a viewer read only, and admins and members every permission', () => {
    expect(permissionsOfRole('viewer')).to.deep.equal(['read']);
    expect(permissionsOfRole('member')).to.deep.equal(['read', 'write', 'delete']);
    expect(permissionsOfRole('admin')).to.deep.equal(['read', 'write', 'delete']);
  });
});

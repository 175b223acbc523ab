/**
 * Issue 17 (docs/api/roles-and-audit-log.md): the read-only `viewer` role, and the audit log of administrative
 * changes. Entries are only ever inserted, in the same transaction as the change they record, by the service
 * that makes the change (gateway: users and API keys; inventory: products and locations; monitor: rules and
 * channels). Each index serves one filter of `GET /api/v1/audit-log/`, newest first.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE users DROP CONSTRAINT IF EXISTS users_role_check;
    ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('admin', 'member', 'viewer'));

    CREATE TABLE audit_log (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      actor_type varchar(16) NOT NULL CHECK (actor_type IN ('user', 'api_key', 'operator')),
      actor_id uuid,
      action varchar(32) NOT NULL,
      resource_type varchar(32) NOT NULL,
      resource_id uuid NOT NULL,
      changes jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE INDEX audit_log_company_created_idx ON audit_log (company_id, created_at DESC, id DESC);
    CREATE INDEX audit_log_company_resource_type_idx ON audit_log (company_id, resource_type, created_at DESC, id DESC);
    -- resource_id leads: the filter's ownership check looks it up across companies (a deleted record has no other owner).
    CREATE INDEX audit_log_resource_id_idx ON audit_log (resource_id, company_id, created_at DESC, id DESC);
    CREATE INDEX audit_log_company_actor_idx ON audit_log (company_id, actor_id, created_at DESC, id DESC);
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TABLE audit_log;
    -- Never a quiet promotion: without the role, a viewer can no longer sign in.
    UPDATE users SET role = 'member', is_active = false WHERE role = 'viewer';
    ALTER TABLE users DROP CONSTRAINT IF EXISTS users_role_check;
    ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('admin', 'member'));
  `);
};

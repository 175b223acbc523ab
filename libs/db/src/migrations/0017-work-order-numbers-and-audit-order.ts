/**
 * Issue 17, second part.
 *
 * - `work_order_counters`: one row per company, the last work order number generated for it
 *   (docs/api/catalog-and-records.md "Work order numbers"). A creation without a number upserts the row, which
 *   locks it until the creation commits, so concurrent creations of one company take consecutive numbers one
 *   after the other and companies never wait for each other. The counter only goes up: a number once generated
 *   is never generated again, even when its work order is renumbered.
 * - The sorts `GET /api/v1/audit-log/` offers (docs/api/ordering-and-search.md): `created_at` is served by
 *   audit_log_company_created_idx (migration 0015, read backwards for ascending); `action` and `resource_type`
 *   get their own index ending with the id tie-breaker.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE work_order_counters (
      company_id uuid PRIMARY KEY REFERENCES companies(id) ON DELETE CASCADE,
      last_number integer NOT NULL CHECK (last_number >= 0)
    );
    CREATE INDEX audit_log_order_action_idx ON audit_log (company_id, action, id);
    CREATE INDEX audit_log_order_resource_type_idx ON audit_log (company_id, resource_type, id);
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP INDEX audit_log_order_resource_type_idx;
    DROP INDEX audit_log_order_action_idx;
    DROP TABLE work_order_counters;
  `);
};

/**
 * Bounds that hostile input must meet in the database itself, whatever code path writes (docs/api/paths-and-hostile-input.md, "Hostile
 * input"):
 * - A stock balance stays below 10^14, the range NUMERIC(20,6) held. The column is widened (same scale, so
 *   PostgreSQL rewrites nothing) so that a booking past the limit meets the named CHECK, which the error
 *   middleware answers with 409 `balance_out_of_range`, instead of overflowing the type (a bare 22003).
 *   The per-request cap bounds one booking, not the sum of many.
 * - Events filtered by rule, and the owner of a rule id that only events still name (a deleted rule), are
 *   found by index.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE stock_balances ALTER COLUMN quantity TYPE numeric(24, 6);
    ALTER TABLE stock_balances ADD CONSTRAINT stock_balances_quantity_max CHECK (quantity < 100000000000000);
    CREATE INDEX event_log_rule_idx ON event_log (rule_id, company_id);
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP INDEX event_log_rule_idx;
    ALTER TABLE stock_balances DROP CONSTRAINT stock_balances_quantity_max;
    ALTER TABLE stock_balances ALTER COLUMN quantity TYPE numeric(20, 6);
  `);
};

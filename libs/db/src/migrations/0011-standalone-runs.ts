/**
 * The record of `check_rules` runs (docs/api/monitoring-and-notifications.md: "The run log"), so the dashboard can show when the
 * monitor last ran and what it did. A run is one row; each company it checked is one row of its own, so a
 * company is shown its own numbers and never another company's. Only the latest runs are kept (the command
 * prunes older ones), so the tables stay small whatever the schedule.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE check_rules_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      trigger varchar(16) NOT NULL CHECK (trigger IN ('scheduler', 'command')),
      started_at timestamptz NOT NULL,
      finished_at timestamptz NOT NULL
    );
    CREATE INDEX check_rules_runs_started_idx ON check_rules_runs (started_at DESC, id DESC);

    CREATE TABLE check_rules_run_companies (
      run_id uuid NOT NULL REFERENCES check_rules_runs(id) ON DELETE CASCADE,
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      status varchar(16) NOT NULL CHECK (status IN ('completed', 'failed', 'skipped')),
      started_at timestamptz NOT NULL,
      products_evaluated integer NOT NULL DEFAULT 0,
      events_opened integer NOT NULL DEFAULT 0,
      events_resolved integer NOT NULL DEFAULT 0,
      deliveries_created integer NOT NULL DEFAULT 0,
      due_deliveries integer NOT NULL DEFAULT 0,
      delivered integer NOT NULL DEFAULT 0,
      retrying integer NOT NULL DEFAULT 0,
      failed integer NOT NULL DEFAULT 0,
      enqueued integer NOT NULL DEFAULT 0,
      PRIMARY KEY (run_id, company_id)
    );
    CREATE INDEX check_rules_run_companies_company_idx ON check_rules_run_companies (company_id, started_at DESC, run_id DESC);
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`DROP TABLE check_rules_run_companies; DROP TABLE check_rules_runs;`);
};

/**
 * Monitoring rules, the event log, notification channels, and the delivery outbox with its attempts.
 *
 * The delivery table is the truth about notifications (the queue only carries ids): a delivery exists
 * once per (event, channel) and its attempts are numbered once per delivery, both by constraint, so a
 * duplicated queue job can never send twice. One OPEN or IGNORED event per (rule, product, batch) is a
 * constraint too, so two monitor runs cannot open the same event twice.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE monitoring_rules (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES product_models(id) ON DELETE CASCADE,
      name varchar(200),
      trigger_type varchar(16) NOT NULL CHECK (trigger_type IN ('THRESHOLD', 'DATE_OFFSET')),
      condition_config jsonb NOT NULL,
      severity varchar(16) NOT NULL DEFAULT 'WARNING' CHECK (severity IN ('INFO', 'WARNING', 'CRITICAL')),
      is_active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX monitoring_rules_product_idx ON monitoring_rules (company_id, product_id);

    CREATE TABLE event_log (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      rule_id uuid NOT NULL,
      rule_source varchar(16) NOT NULL CHECK (rule_source IN ('rule', 'engine_config', 'attribute')),
      product_id uuid NOT NULL REFERENCES product_models(id) ON DELETE CASCADE,
      batch_id uuid REFERENCES batches(id) ON DELETE CASCADE,
      trigger_type varchar(16) NOT NULL,
      severity varchar(16) NOT NULL,
      message varchar(1000) NOT NULL,
      details jsonb NOT NULL DEFAULT '{}',
      status varchar(16) NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'RESOLVED', 'IGNORED')),
      status_changed_by uuid,
      status_changed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX event_log_one_live_event ON event_log (rule_id, product_id, batch_id) NULLS NOT DISTINCT
      WHERE status IN ('OPEN', 'IGNORED');
    CREATE INDEX event_log_company_idx ON event_log (company_id, status, created_at);
    CREATE INDEX event_log_product_idx ON event_log (company_id, product_id, created_at);

    CREATE TABLE notification_channels (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      name varchar(100) NOT NULL,
      kind varchar(16) NOT NULL CHECK (kind IN ('WEBHOOK', 'EMAIL')),
      url varchar(2048),
      recipients varchar(254)[],
      events varchar(16)[] NOT NULL,
      secret_encrypted text NOT NULL,
      max_attempts smallint NOT NULL DEFAULT 5 CHECK (max_attempts BETWEEN 1 AND 5),
      is_active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((kind = 'WEBHOOK') = (url IS NOT NULL)),
      CHECK ((kind = 'EMAIL') = (recipients IS NOT NULL))
    );
    CREATE INDEX notification_channels_company_idx ON notification_channels (company_id, is_active);

    CREATE TABLE notification_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      channel_id uuid NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
      event_id uuid REFERENCES event_log(id) ON DELETE CASCADE,
      event_type varchar(16) NOT NULL,
      payload text NOT NULL,
      status varchar(16) NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'RETRYING', 'DELIVERED', 'FAILED')),
      attempts smallint NOT NULL DEFAULT 0,
      max_attempts smallint NOT NULL CHECK (max_attempts BETWEEN 1 AND 5),
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      last_status_code integer,
      last_error varchar(1000),
      delivered_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX notification_deliveries_once ON notification_deliveries (event_id, channel_id) WHERE event_id IS NOT NULL;
    CREATE INDEX notification_deliveries_due_idx ON notification_deliveries (next_attempt_at) WHERE status IN ('PENDING', 'RETRYING');
    CREATE INDEX notification_deliveries_company_idx ON notification_deliveries (company_id, created_at);
    CREATE INDEX notification_deliveries_channel_idx ON notification_deliveries (channel_id, created_at);

    CREATE TABLE notification_attempts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      delivery_id uuid NOT NULL REFERENCES notification_deliveries(id) ON DELETE CASCADE,
      number smallint NOT NULL,
      ok boolean NOT NULL,
      status_code integer,
      error varchar(1000),
      response_excerpt varchar(500),
      duration_ms integer NOT NULL,
      started_at timestamptz NOT NULL,
      UNIQUE (delivery_id, number)
    );
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TABLE notification_attempts; DROP TABLE notification_deliveries; DROP TABLE notification_channels;
    DROP TABLE event_log; DROP TABLE monitoring_rules;
  `);
};

/**
 * Delivery isolation (docs/api/monitoring-and-notifications.md "Delivery guarantees"): an attempt is written as STARTED before its send and
 * closed after it (SUCCEEDED or FAILED), or later found INTERRUPTED when its sender died; and a channel carries
 * its circuit breaker (consecutive failed attempts, paused since when and why, when the next probe may go).
 *
 * The partial indexes keep the two hot questions cheap: "which attempts are in flight" (a handful of rows at
 * any time) and "the oldest due delivery of this channel" (the probe of a paused channel).
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE notification_attempts
      ADD COLUMN status varchar(16),
      ADD COLUMN finished_at timestamptz;
    UPDATE notification_attempts
       SET status = CASE WHEN ok THEN 'SUCCEEDED' ELSE 'FAILED' END,
           finished_at = started_at + make_interval(secs => duration_ms / 1000.0);
    ALTER TABLE notification_attempts
      ALTER COLUMN status SET NOT NULL,
      ADD CONSTRAINT notification_attempts_status_check CHECK (status IN ('STARTED', 'SUCCEEDED', 'FAILED', 'INTERRUPTED')),
      ADD CONSTRAINT notification_attempts_ok_check CHECK (ok = (status = 'SUCCEEDED')),
      ADD CONSTRAINT notification_attempts_finished_check CHECK ((status = 'STARTED') = (finished_at IS NULL));
    CREATE INDEX notification_attempts_in_flight_idx ON notification_attempts (delivery_id) WHERE status = 'STARTED';

    ALTER TABLE notification_channels
      ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
      ADD COLUMN paused_at timestamptz,
      ADD COLUMN paused_reason varchar(1000),
      ADD COLUMN next_probe_at timestamptz,
      ADD CONSTRAINT notification_channels_paused_check CHECK ((paused_at IS NULL) = (paused_reason IS NULL));

    CREATE INDEX notification_deliveries_channel_due_idx ON notification_deliveries (channel_id, next_attempt_at, id)
      WHERE status IN ('PENDING', 'RETRYING');
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP INDEX notification_deliveries_channel_due_idx;
    ALTER TABLE notification_channels
      DROP CONSTRAINT notification_channels_paused_check,
      DROP COLUMN next_probe_at, DROP COLUMN paused_reason, DROP COLUMN paused_at, DROP COLUMN consecutive_failures;
    DROP INDEX notification_attempts_in_flight_idx;
    -- An attempt still in flight or interrupted becomes what the old schema can say: a failed attempt.
    ALTER TABLE notification_attempts
      DROP CONSTRAINT notification_attempts_finished_check,
      DROP CONSTRAINT notification_attempts_ok_check,
      DROP CONSTRAINT notification_attempts_status_check,
      DROP COLUMN finished_at, DROP COLUMN status;
  `);
};

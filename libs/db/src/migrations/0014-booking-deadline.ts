/**
 * A one-statement booking under the request's deadline (docs/api/deadlines-and-retries.md).
 *
 * A transaction of several statements gets its deadline from `SET LOCAL statement_timeout` and
 * `idle_in_transaction_session_timeout` (resilient-sequelize.ts). A booking sent as one statement cannot be
 * prefixed with a SET without a second round trip, and statement_timeout is armed when a statement starts,
 * so `ledger_book_within` carries the time left as a parameter instead:
 * - it sets `lock_timeout` to the time left before the booking takes any lock, so waiting for a busy balance
 *   or for the stock lock ends with 55P03 before the gateway gives up;
 * - after the booking, if the time left has run out all the same, it raises 57014 (query_canceled), which
 *   rolls the whole booking back: a booking that outlived its deadline never commits.
 * Both errors mean "nothing changed" and become 503 `service_unavailable` in the service. A NULL time left
 * (no deadline: commands, direct calls) books exactly like `ledger_book`.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE FUNCTION ledger_book_within(
      p_time_left_ms integer,
      p_company uuid, p_product uuid, p_op text, p_kind text, p_from uuid, p_to uuid,
      p_quantity numeric, p_expected numeric, p_reason text,
      p_actor_kind text, p_actor_id uuid, p_request_id text,
      p_key text, p_fingerprint text, p_status smallint,
      OUT replayed boolean, OUT status smallint, OUT booking json, OUT legacy_body text
    ) LANGUAGE plpgsql AS $$
    BEGIN
      IF p_time_left_ms IS NOT NULL THEN
        PERFORM set_config('lock_timeout', greatest(p_time_left_ms, 1) || 'ms', true);
      END IF;
      SELECT b.replayed, b.status, b.booking, b.legacy_body INTO replayed, status, booking, legacy_body
        FROM ledger_book(p_company, p_product, p_op, p_kind, p_from, p_to, p_quantity, p_expected, p_reason,
                         p_actor_kind, p_actor_id, p_request_id, p_key, p_fingerprint, p_status) b;
      IF p_time_left_ms IS NOT NULL AND clock_timestamp() > statement_timestamp() + p_time_left_ms * interval '1 millisecond' THEN
        RAISE EXCEPTION USING ERRCODE = 'query_canceled', MESSAGE = 'the booking outlived its request''s deadline';
      END IF;
    END $$;
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP FUNCTION ledger_book_within(integer, uuid, uuid, text, text, uuid, uuid, numeric, numeric, text, text, uuid, text, text, text, smallint);
  `);
};

/**
 * A booking as one statement: `ledger_book(...)` claims the Idempotency-Key, checks the product and the
 * locations (ownership, active, physical), takes the stock locks, changes the balances, appends the ledger
 * row, reads the new totals and remembers the result for a replay, all inside the statement that the
 * inventory service sends (services/inventory/src/sql/booking.ts). The row lock a booking takes is
 * therefore held only while the server works on it, never across round trips to the client.
 *
 * It books STANDARD and DIMENSIONAL products. BATCH and SERIALIZED ones (batches, FEFO, items) keep their
 * transaction of several statements in the service: for them the function refuses with `general_booking`
 * before it has written anything.
 *
 * Refusals raise SQLSTATE `IV001` with a reason as the message (`not_found`, `access_denied`,
 * `insufficient_stock`, …) and the facts as JSON in DETAIL; the service turns them into its HTTP errors
 * and owns every user-facing text. Any refusal rolls back the whole statement, the claim included, so a
 * refused booking books nothing and may be retried with its key.
 *
 * The stock locks are the transaction-scoped advisory locks the service's own ledger code takes
 * (services/inventory/src/ledger/locks.ts): one per (product, location), keyed by the first 8 bytes of
 * SHA-256 of `<product>/<location>`, taken in ascending key order, so bookings through either path wait
 * for each other and transfers in opposite directions never deadlock.
 *
 * `idempotency_keys.booking` holds what the booking answered as data (the JSON this function returns);
 * the service presents it the same way every time, so a replay is the first answer byte for byte. Keys
 * claimed before this migration keep their stored HTTP body in `response_body`.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE idempotency_keys ADD COLUMN booking text;

    CREATE FUNCTION ledger_refuse(reason text, facts json DEFAULT '{}') RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION USING ERRCODE = 'IV001', MESSAGE = reason, DETAIL = facts::text;
    END $$;

    CREATE FUNCTION ledger_lock_key(product uuid, location uuid) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT ('x' || left(encode(sha256(convert_to(product::text || '/' || location::text, 'UTF8')), 'hex'), 16))::bit(64)::bigint
    $$;

    CREATE FUNCTION ledger_lock_stock(product uuid, locations uuid[]) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      lock_key bigint;
    BEGIN
      FOREACH lock_key IN ARRAY (SELECT array_agg(DISTINCT ledger_lock_key(product, l) ORDER BY ledger_lock_key(product, l)) FROM unnest(locations) l) LOOP
        PERFORM pg_advisory_xact_lock(lock_key);
      END LOOP;
    END $$;

    -- An active physical location of the company; side ('from' or 'to') names the request field in refusals.
    CREATE FUNCTION ledger_check_location(company uuid, location uuid, side text) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      found_location record;
    BEGIN
      SELECT l.company_id, l.type, l.is_active INTO found_location FROM locations l WHERE l.id = location;
      IF NOT FOUND THEN PERFORM ledger_refuse('not_found', json_build_object('what', 'Location')); END IF;
      IF found_location.company_id <> company THEN PERFORM ledger_refuse('access_denied'); END IF;
      IF found_location.type = 'VIRTUAL' THEN PERFORM ledger_refuse('virtual_location', json_build_object('side', side)); END IF;
      IF NOT found_location.is_active THEN PERFORM ledger_refuse('inactive_location', json_build_object('side', side)); END IF;
    END $$;

    -- A quantity the product can hold: given, and with no more decimal places than the product's.
    CREATE FUNCTION ledger_check_quantity(quantity numeric, decimals smallint, field text) RETURNS numeric LANGUAGE plpgsql AS $$
    BEGIN
      IF quantity IS NULL THEN PERFORM ledger_refuse('quantity_required', json_build_object('field', field)); END IF;
      IF quantity <> trunc(quantity, decimals) THEN PERFORM ledger_refuse('precision', json_build_object('field', field, 'decimals', decimals)); END IF;
      RETURN quantity;
    END $$;

    CREATE FUNCTION ledger_add(company uuid, product uuid, location uuid, quantity numeric) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO stock_balances AS b (company_id, product_id, location_id, batch_id, quantity)
      VALUES (company, product, location, NULL, ledger_add.quantity)
      ON CONFLICT ON CONSTRAINT stock_balances_key
      DO UPDATE SET quantity = b.quantity + EXCLUDED.quantity, updated_at = now();
    END $$;

    -- Conditional subtraction: refuses insufficient_stock, with what is there, when the balance lacks it.
    CREATE FUNCTION ledger_take(product uuid, location uuid, quantity numeric) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE stock_balances b SET quantity = b.quantity - ledger_take.quantity, updated_at = now()
       WHERE b.product_id = product AND b.location_id = location AND b.batch_id IS NULL AND b.quantity >= ledger_take.quantity;
      IF NOT FOUND THEN
        PERFORM ledger_refuse('insufficient_stock', json_build_object(
          'available', COALESCE((SELECT b.quantity FROM stock_balances b WHERE b.product_id = product AND b.location_id = location AND b.batch_id IS NULL), 0)::text,
          'requested', quantity::text,
          'location_id', location));
      END IF;
    END $$;

    -- Appends one ledger row and answers it as JSON (created_at in UTC with milliseconds, as the API shows it).
    CREATE FUNCTION ledger_append(company uuid, product uuid, kind text, from_location uuid, to_location uuid, quantity numeric,
                                  reason text, actor_kind text, actor_id uuid, request_id text) RETURNS json LANGUAGE plpgsql AS $$
    DECLARE
      m stock_movements;
    BEGIN
      INSERT INTO stock_movements (company_id, product_id, kind, from_location_id, to_location_id, quantity, reason, actor_kind, actor_id, request_id)
      VALUES (company, product, kind, from_location, to_location, quantity, reason, actor_kind, actor_id, request_id)
      RETURNING * INTO m;
      RETURN json_build_object(
        'id', m.id, 'seq', m.seq, 'company_id', m.company_id, 'product_id', m.product_id, 'kind', m.kind,
        'from_location_id', m.from_location_id, 'to_location_id', m.to_location_id, 'quantity', m.quantity::text,
        'batch_id', m.batch_id, 'item_ids', m.item_ids, 'reason', m.reason, 'actor_kind', m.actor_kind, 'actor_id', m.actor_id,
        'request_id', m.request_id, 'created_at', to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
    END $$;

    /*
     * One booking. op: 'in' (to p_to from the company's Inbound), 'out' (from p_from to its Outbound),
     * 'count' (a physical count at p_to, booked as the difference; p_expected makes it a compare-and-swap),
     * 'transfer' (p_from to p_to), or 'core' (a movement between two named locations: from Inbound is 'in',
     * to Outbound is 'out', anything else a 'transfer'). kind is the ledger kind of 'in' and 'out'.
     * With p_key, the key is claimed first: a key seen before answers its stored booking (replayed) or,
     * with another fingerprint, refuses idempotency_key_reused.
     */
    CREATE FUNCTION ledger_book(
      p_company uuid, p_product uuid, p_op text, p_kind text, p_from uuid, p_to uuid,
      p_quantity numeric, p_expected numeric, p_reason text,
      p_actor_kind text, p_actor_id uuid, p_request_id text,
      p_key text, p_fingerprint text, p_status smallint,
      OUT replayed boolean, OUT status smallint, OUT booking json, OUT legacy_body text
    ) LANGUAGE plpgsql AS $$
    DECLARE
      stored record;
      product record;
      op text := p_op;
      kind text := p_kind;
      inbound uuid;
      outbound uuid;
      quantity numeric;
      places uuid[];
      movements json[] := '{}';
      total numeric;
      at_first numeric;
      at_second numeric;
    BEGIN
      replayed := false;
      status := p_status;
      IF p_key IS NOT NULL THEN
        INSERT INTO idempotency_keys (company_id, key, fingerprint) VALUES (p_company, p_key, p_fingerprint) ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
          SELECT k.fingerprint, k.response_status, k.booking, k.response_body INTO stored
            FROM idempotency_keys k WHERE k.company_id = p_company AND k.key = p_key;
          IF stored.fingerprint <> p_fingerprint THEN PERFORM ledger_refuse('idempotency_key_reused'); END IF;
          replayed := true;
          status := stored.response_status;
          booking := stored.booking::json;
          legacy_body := stored.response_body;
          RETURN;
        END IF;
      END IF;

      -- Share-locked: a change of profile or decimals, or a delete, waits for the booking, and it for them.
      SELECT p.company_id, p.profile, p.is_active, p.unit, p.decimals INTO product FROM product_models p WHERE p.id = p_product FOR SHARE;
      IF NOT FOUND THEN PERFORM ledger_refuse('not_found', json_build_object('what', 'Product')); END IF;
      IF product.company_id <> p_company THEN PERFORM ledger_refuse('access_denied'); END IF;
      IF product.profile NOT IN ('STANDARD', 'DIMENSIONAL') THEN PERFORM ledger_refuse('general_booking', json_build_object('profile', product.profile)); END IF;
      IF NOT product.is_active THEN PERFORM ledger_refuse('inactive_product'); END IF;

      IF op <> 'transfer' THEN
        SELECT (array_agg(l.id) FILTER (WHERE l.system_role = 'INBOUND'))[1], (array_agg(l.id) FILTER (WHERE l.system_role = 'OUTBOUND'))[1]
          INTO inbound, outbound FROM locations l WHERE l.company_id = p_company AND l.system_role IS NOT NULL;
      END IF;
      IF op = 'core' THEN
        IF p_from = inbound THEN op := 'in'; kind := 'ADD';
        ELSIF p_to = outbound THEN op := 'out'; kind := 'SUBTRACT';
        ELSE op := 'transfer'; kind := 'TRANSFER';
        END IF;
      END IF;

      IF op = 'in' THEN
        PERFORM ledger_check_location(p_company, p_to, 'to');
        quantity := ledger_check_quantity(p_quantity, product.decimals, 'quantity');
        places := ARRAY[p_to];
        PERFORM ledger_lock_stock(p_product, places);
        PERFORM ledger_add(p_company, p_product, p_to, quantity);
        movements := ARRAY[ledger_append(p_company, p_product, kind, inbound, p_to, quantity, p_reason, p_actor_kind, p_actor_id, p_request_id)];
      ELSIF op = 'out' THEN
        PERFORM ledger_check_location(p_company, p_from, 'from');
        quantity := ledger_check_quantity(p_quantity, product.decimals, 'quantity');
        places := ARRAY[p_from];
        PERFORM ledger_lock_stock(p_product, places);
        PERFORM ledger_take(p_product, p_from, quantity);
        movements := ARRAY[ledger_append(p_company, p_product, kind, p_from, outbound, quantity, p_reason, p_actor_kind, p_actor_id, p_request_id)];
      ELSIF op = 'count' THEN
        PERFORM ledger_check_location(p_company, p_to, 'to');
        quantity := ledger_check_quantity(p_quantity, product.decimals, 'quantity');
        IF p_expected IS NOT NULL THEN PERFORM ledger_check_quantity(p_expected, product.decimals, 'expected_quantity'); END IF;
        places := ARRAY[p_to];
        PERFORM ledger_lock_stock(p_product, places);
        SELECT COALESCE((SELECT b.quantity FROM stock_balances b WHERE b.product_id = p_product AND b.location_id = p_to AND b.batch_id IS NULL), 0) INTO at_first;
        IF p_expected IS NOT NULL AND at_first <> p_expected THEN
          PERFORM ledger_refuse('stock_changed', json_build_object('expected', p_expected::text, 'current', at_first::text));
        END IF;
        IF quantity > at_first THEN
          PERFORM ledger_add(p_company, p_product, p_to, quantity - at_first);
          movements := ARRAY[ledger_append(p_company, p_product, 'ADJUST', inbound, p_to, quantity - at_first, p_reason, p_actor_kind, p_actor_id, p_request_id)];
        ELSIF quantity < at_first THEN
          PERFORM ledger_take(p_product, p_to, at_first - quantity);
          movements := ARRAY[ledger_append(p_company, p_product, 'ADJUST', p_to, outbound, at_first - quantity, p_reason, p_actor_kind, p_actor_id, p_request_id)];
        END IF;
      ELSIF op = 'transfer' THEN
        PERFORM ledger_check_location(p_company, p_from, 'from');
        PERFORM ledger_check_location(p_company, p_to, 'to');
        IF p_from = p_to THEN PERFORM ledger_refuse('same_location'); END IF;
        quantity := ledger_check_quantity(p_quantity, product.decimals, 'quantity');
        places := ARRAY[p_from, p_to];
        PERFORM ledger_lock_stock(p_product, places);
        PERFORM ledger_take(p_product, p_from, quantity);
        PERFORM ledger_add(p_company, p_product, p_to, quantity);
        movements := ARRAY[ledger_append(p_company, p_product, 'TRANSFER', p_from, p_to, quantity, p_reason, p_actor_kind, p_actor_id, p_request_id)];
      ELSE
        RAISE EXCEPTION 'ledger_book: unknown op %', op;
      END IF;

      SELECT COALESCE(SUM(b.quantity), 0),
             COALESCE(SUM(b.quantity) FILTER (WHERE b.location_id = places[1]), 0),
             COALESCE(SUM(b.quantity) FILTER (WHERE b.location_id = places[2]), 0)
        INTO total, at_first, at_second
        FROM stock_balances b WHERE b.product_id = p_product;
      booking := json_build_object(
        'op', op, 'product_id', p_product, 'unit', product.unit, 'decimals', product.decimals,
        'movements', array_to_json(movements), 'total', total::text,
        'locations', CASE WHEN cardinality(places) = 2
                          THEN json_build_array(json_build_object('id', places[1], 'quantity', at_first::text), json_build_object('id', places[2], 'quantity', at_second::text))
                          ELSE json_build_array(json_build_object('id', places[1], 'quantity', at_first::text)) END);
      IF p_key IS NOT NULL THEN
        UPDATE idempotency_keys k SET response_status = p_status, booking = ledger_book.booking::text WHERE k.company_id = p_company AND k.key = p_key;
      END IF;
    END $$;
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP FUNCTION ledger_book(uuid, uuid, text, text, uuid, uuid, numeric, numeric, text, text, uuid, text, text, text, smallint);
    DROP FUNCTION ledger_append(uuid, uuid, text, uuid, uuid, numeric, text, text, uuid, text);
    DROP FUNCTION ledger_take(uuid, uuid, numeric);
    DROP FUNCTION ledger_add(uuid, uuid, uuid, numeric);
    DROP FUNCTION ledger_check_quantity(numeric, smallint, text);
    DROP FUNCTION ledger_check_location(uuid, uuid, text);
    DROP FUNCTION ledger_lock_stock(uuid, uuid[]);
    DROP FUNCTION ledger_lock_key(uuid, uuid);
    DROP FUNCTION ledger_refuse(text, json);
    ALTER TABLE idempotency_keys DROP COLUMN booking;
  `);
};

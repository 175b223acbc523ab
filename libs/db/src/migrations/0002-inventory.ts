/**
 * The inventory: product models, batches, serialized items, work orders, the append-only stock ledger, its
 * balance projection, and idempotency records for booking endpoints.
 *
 * Balances exist for physical locations only. The ledger is double entry through the VIRTUAL Inbound and
 * Outbound locations, but their balances would be one hot row per product that every booking updates, so
 * they are not kept: a virtual location's stock is derived from the ledger when needed.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE product_models (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      sku varchar(100) NOT NULL,
      name varchar(200) NOT NULL,
      description text,
      profile varchar(16) NOT NULL CHECK (profile IN ('STANDARD', 'SERIALIZED', 'BATCH', 'DIMENSIONAL')),
      engine_config jsonb NOT NULL,
      unit varchar(16) NOT NULL,
      decimals smallint NOT NULL CHECK (decimals BETWEEN 0 AND 6),
      is_active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX product_models_sku_unique ON product_models (company_id, sku);
    CREATE INDEX product_models_company_name_idx ON product_models (company_id, is_active, name);

    CREATE TABLE batches (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES product_models(id),
      code varchar(100) NOT NULL,
      expiration_date date,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX batches_code_unique ON batches (company_id, code);
    CREATE INDEX batches_product_idx ON batches (company_id, product_id, expiration_date);

    CREATE TABLE physical_items (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES product_models(id),
      serial_number varchar(100) NOT NULL,
      location_id uuid NOT NULL REFERENCES locations(id),
      is_active boolean NOT NULL DEFAULT true,
      retired_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX physical_items_serial_unique ON physical_items (company_id, serial_number);
    CREATE INDEX physical_items_product_idx ON physical_items (company_id, product_id, is_active, location_id);

    CREATE TABLE work_orders (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      number varchar(50) NOT NULL,
      title varchar(200) NOT NULL,
      status varchar(16) NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'IN_PROGRESS', 'DONE', 'CANCELLED')),
      product_id uuid REFERENCES product_models(id),
      quantity numeric(20, 6) CHECK (quantity > 0),
      due_date date,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX work_orders_number_unique ON work_orders (company_id, number);
    CREATE INDEX work_orders_status_idx ON work_orders (company_id, status, due_date);

    CREATE TABLE stock_movements (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      seq bigserial NOT NULL UNIQUE,
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES product_models(id),
      kind varchar(16) NOT NULL CHECK (kind IN ('ADD', 'SUBTRACT', 'MOVE_IN', 'MOVE_OUT', 'TRANSFER', 'ADJUST')),
      from_location_id uuid NOT NULL REFERENCES locations(id),
      to_location_id uuid NOT NULL REFERENCES locations(id),
      quantity numeric(20, 6) NOT NULL CHECK (quantity > 0),
      batch_id uuid REFERENCES batches(id),
      item_ids uuid[],
      reason varchar(500) NOT NULL DEFAULT '',
      actor_kind varchar(16) NOT NULL CHECK (actor_kind IN ('user', 'api_key')),
      actor_id uuid NOT NULL,
      request_id varchar(128),
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK (from_location_id <> to_location_id)
    );
    CREATE INDEX stock_movements_company_seq_idx ON stock_movements (company_id, seq);
    CREATE INDEX stock_movements_product_seq_idx ON stock_movements (company_id, product_id, seq);
    CREATE INDEX stock_movements_from_idx ON stock_movements (company_id, from_location_id, seq);
    CREATE INDEX stock_movements_to_idx ON stock_movements (company_id, to_location_id, seq);

    -- The ledger is append-only: no UPDATE or DELETE, whoever asks.
    CREATE FUNCTION stock_movements_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'stock_movements is append-only';
    END $$;
    CREATE TRIGGER stock_movements_no_update BEFORE UPDATE OR DELETE ON stock_movements
      FOR EACH ROW EXECUTE FUNCTION stock_movements_append_only();

    CREATE TABLE stock_balances (
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES product_models(id),
      location_id uuid NOT NULL REFERENCES locations(id),
      batch_id uuid REFERENCES batches(id),
      quantity numeric(20, 6) NOT NULL DEFAULT 0 CHECK (quantity >= 0),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT stock_balances_key UNIQUE NULLS NOT DISTINCT (product_id, location_id, batch_id)
    );
    CREATE INDEX stock_balances_company_product_idx ON stock_balances (company_id, product_id);
    CREATE INDEX stock_balances_company_location_idx ON stock_balances (company_id, location_id);
    CREATE INDEX stock_balances_batch_idx ON stock_balances (batch_id) WHERE batch_id IS NOT NULL;

    CREATE TABLE idempotency_keys (
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      key varchar(255) NOT NULL,
      fingerprint char(64) NOT NULL,
      response_status smallint,
      response_body text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (company_id, key)
    );
    CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TABLE idempotency_keys; DROP TABLE stock_balances; DROP TABLE stock_movements;
    DROP FUNCTION stock_movements_append_only(); DROP TABLE work_orders; DROP TABLE physical_items;
    DROP TABLE batches; DROP TABLE product_models;
  `);
};

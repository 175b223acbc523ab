/**
 * QR codes and their one-time redirect tokens. Codes are unique across companies (a scan of `/go/<code>/`
 * names no company). Keys minted for a scan point at the widget key they inherit from (`parent_key_id`), so
 * rotating or revoking that key revokes them.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE qr_codes (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      code varchar(64) NOT NULL,
      status varchar(16) NOT NULL DEFAULT 'VIRGIN' CHECK (status IN ('VIRGIN', 'CONFIGURED', 'LOCKED')),
      target_type varchar(16) CHECK (target_type IN ('PRODUCT', 'ITEM', 'WORK_ORDER')),
      target_id uuid,
      product_model_id uuid REFERENCES product_models(id),
      configured_at timestamptz,
      locked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((status = 'VIRGIN') = (target_type IS NULL)),
      CHECK ((target_type IS NULL) = (target_id IS NULL))
    );
    CREATE UNIQUE INDEX qr_codes_code_unique ON qr_codes (code);
    CREATE INDEX qr_codes_company_idx ON qr_codes (company_id, status, created_at);
    CREATE INDEX qr_codes_target_idx ON qr_codes (company_id, target_type, target_id);

    CREATE TABLE redirect_token_uses (
      jti uuid PRIMARY KEY,
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      code varchar(64) NOT NULL,
      api_key_id uuid,
      expires_at timestamptz NOT NULL,
      used_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX redirect_token_uses_expiry_idx ON redirect_token_uses (expires_at);

    ALTER TABLE api_keys ADD COLUMN parent_key_id uuid REFERENCES api_keys(id);
    ALTER TABLE api_keys ADD COLUMN qr_code varchar(64);
    CREATE INDEX api_keys_parent_idx ON api_keys (parent_key_id) WHERE parent_key_id IS NOT NULL;
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP INDEX api_keys_parent_idx; ALTER TABLE api_keys DROP COLUMN qr_code; ALTER TABLE api_keys DROP COLUMN parent_key_id;
    DROP TABLE redirect_token_uses; DROP TABLE qr_codes;
  `);
};

/** Companies, users, API keys, and locations (which registration seeds with the two VIRTUAL system ones). */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE companies (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name varchar(200) NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      username varchar(150) NOT NULL,
      email varchar(254),
      password_hash varchar(255) NOT NULL,
      role varchar(16) NOT NULL CHECK (role IN ('admin', 'member')),
      is_active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_username_unique ON users (lower(username));
    CREATE INDEX users_company_idx ON users (company_id, created_at);

    CREATE TABLE api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      name varchar(100) NOT NULL,
      prefix varchar(16) NOT NULL,
      key_hash char(64) NOT NULL,
      permissions varchar(16)[] NOT NULL CHECK (permissions <@ ARRAY['read','write','delete']::varchar[] AND cardinality(permissions) > 0),
      allowed_domains varchar(255)[] NOT NULL DEFAULT '{}',
      tier varchar(16) NOT NULL DEFAULT 'free' CHECK (tier IN ('free', 'standard', 'premium')),
      is_widget_key boolean NOT NULL DEFAULT false,
      expires_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz,
      usage_count bigint NOT NULL DEFAULT 0,
      created_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX api_keys_key_hash_unique ON api_keys (key_hash);
    CREATE INDEX api_keys_company_idx ON api_keys (company_id, created_at);
    CREATE UNIQUE INDEX api_keys_one_widget_key ON api_keys (company_id) WHERE is_widget_key AND revoked_at IS NULL;

    CREATE TABLE locations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      name varchar(200) NOT NULL,
      type varchar(16) NOT NULL CHECK (type IN ('WAREHOUSE', 'STORE', 'SHELF', 'VEHICLE', 'VIRTUAL')),
      parent_id uuid REFERENCES locations(id),
      system_role varchar(16) CHECK (system_role IN ('INBOUND', 'OUTBOUND')),
      is_active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (system_role IS NULL OR type = 'VIRTUAL')
    );
    CREATE INDEX locations_company_idx ON locations (company_id, type, is_active);
    CREATE UNIQUE INDEX locations_system_role_unique ON locations (company_id, system_role) WHERE system_role IS NOT NULL;
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql('DROP TABLE locations; DROP TABLE api_keys; DROP TABLE users; DROP TABLE companies;');
};

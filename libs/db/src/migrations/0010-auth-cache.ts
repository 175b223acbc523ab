/**
 * What the gateway's credential cache needs from the database (docs/api/authentication.md "Credential cache"):
 *
 * - `users.token_version`: bearer tokens carry the version they were issued with, and the gateway refuses a
 *   token whose version is not the user's current one. A trigger raises it whenever the password, the role
 *   or the company changes, or the user is deactivated: whichever path makes the change (the API, an
 *   operator's SQL), that user's access and refresh tokens stop working at once.
 * - `NOTIFY pi_auth_changes` after every change that can alter what a cached API key or user authorizes,
 *   sent by triggers on commit (never for a transaction that rolls back). Payloads: `key:<key_hash>` (the
 *   hash before the change, which is what the gateways cache keys by), `user:<id>`, `company:<id>`. Usage
 *   counters (`usage_count`, `last_used_at`, written every second) and names send nothing.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE users ADD COLUMN token_version integer NOT NULL DEFAULT 0;

    CREATE FUNCTION users_revoke_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.token_version := OLD.token_version + 1;
      RETURN NEW;
    END $$;
    CREATE TRIGGER users_revoke_tokens BEFORE UPDATE ON users FOR EACH ROW
      WHEN (NEW.password_hash IS DISTINCT FROM OLD.password_hash
            OR NEW.role IS DISTINCT FROM OLD.role
            OR NEW.company_id IS DISTINCT FROM OLD.company_id
            OR (OLD.is_active AND NOT NEW.is_active))
      EXECUTE FUNCTION users_revoke_tokens();

    -- Arguments: the payload's kind and the column of the old row that follows it.
    CREATE FUNCTION notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('pi_auth_changes', TG_ARGV[0] || ':' || (to_jsonb(OLD) ->> TG_ARGV[1]));
      RETURN NULL;
    END $$;

    CREATE TRIGGER api_keys_auth_change AFTER UPDATE ON api_keys FOR EACH ROW
      WHEN ((OLD.key_hash, OLD.company_id, OLD.permissions, OLD.allowed_domains, OLD.tier, OLD.expires_at, OLD.revoked_at, OLD.parent_key_id)
            IS DISTINCT FROM
            (NEW.key_hash, NEW.company_id, NEW.permissions, NEW.allowed_domains, NEW.tier, NEW.expires_at, NEW.revoked_at, NEW.parent_key_id))
      EXECUTE FUNCTION notify_auth_change('key', 'key_hash');
    CREATE TRIGGER api_keys_auth_delete AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_auth_change('key', 'key_hash');

    CREATE TRIGGER users_auth_change AFTER UPDATE ON users FOR EACH ROW
      WHEN ((OLD.company_id, OLD.role, OLD.is_active, OLD.token_version) IS DISTINCT FROM (NEW.company_id, NEW.role, NEW.is_active, NEW.token_version))
      EXECUTE FUNCTION notify_auth_change('user', 'id');
    CREATE TRIGGER users_auth_delete AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION notify_auth_change('user', 'id');

    CREATE TRIGGER companies_auth_change AFTER UPDATE OR DELETE ON companies FOR EACH ROW EXECUTE FUNCTION notify_auth_change('company', 'id');
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TRIGGER companies_auth_change ON companies;
    DROP TRIGGER users_auth_delete ON users; DROP TRIGGER users_auth_change ON users;
    DROP TRIGGER api_keys_auth_delete ON api_keys; DROP TRIGGER api_keys_auth_change ON api_keys;
    DROP FUNCTION notify_auth_change();
    DROP TRIGGER users_revoke_tokens ON users; DROP FUNCTION users_revoke_tokens();
    ALTER TABLE users DROP COLUMN token_version;
  `);
};

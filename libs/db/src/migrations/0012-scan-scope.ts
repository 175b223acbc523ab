/**
 * Least privilege for QR scans (docs/api/scanning.md). A key minted by a scan records what it may reach: the
 * scan policy it was minted under, the code's target and the target's product, and the user who signed in
 * inside the widget (a sign-in mints a new key, so one key always names one user or none, and a movement's
 * key says for good who booked it). Each company sets the default policy and the scan key's lifetime; a code
 * may override the policy.
 *
 * The auth-change trigger of migration 0010 notifies only on the columns authentication read then: it now
 * also covers the scope, so a gateway never serves a stale scope from its credential cache.
 */
import type { MigrationFn } from '../migrator';

const POLICIES = `('read', 'book', 'staff')`;

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE companies
      ADD COLUMN scan_policy varchar(8) NOT NULL DEFAULT 'book' CHECK (scan_policy IN ${POLICIES}),
      ADD COLUMN scan_key_seconds integer NOT NULL DEFAULT 28800 CHECK (scan_key_seconds BETWEEN 300 AND 604800);

    ALTER TABLE qr_codes ADD COLUMN scan_policy varchar(8) CHECK (scan_policy IN ${POLICIES});

    ALTER TABLE api_keys
      ADD COLUMN scan_policy varchar(8) CHECK (scan_policy IN ${POLICIES}),
      ADD COLUMN scan_target_type varchar(16) CHECK (scan_target_type IN ('PRODUCT', 'ITEM', 'WORK_ORDER')),
      ADD COLUMN scan_target_id uuid,
      ADD COLUMN scan_product_id uuid,
      ADD COLUMN scan_user_id uuid REFERENCES users(id);
    -- Scans minted before this migration keep working, scoped to their code's target as it is now.
    UPDATE api_keys k SET scan_policy = 'book', scan_target_type = c.target_type, scan_target_id = c.target_id, scan_product_id = c.product_model_id
      FROM qr_codes c WHERE k.qr_code IS NOT NULL AND c.code = k.qr_code;
    UPDATE api_keys SET scan_policy = 'book' WHERE qr_code IS NOT NULL AND scan_policy IS NULL;
    ALTER TABLE api_keys ADD CONSTRAINT api_keys_scan_scope CHECK ((qr_code IS NULL) = (scan_policy IS NULL));

    -- The scan sessions screen: a company's scan keys, newest first.
    CREATE INDEX api_keys_scan_sessions_idx ON api_keys (company_id, created_at DESC, id DESC) WHERE qr_code IS NOT NULL;

    DROP TRIGGER api_keys_auth_change ON api_keys;
    CREATE TRIGGER api_keys_auth_change AFTER UPDATE ON api_keys FOR EACH ROW
      WHEN ((OLD.key_hash, OLD.company_id, OLD.permissions, OLD.allowed_domains, OLD.tier, OLD.expires_at, OLD.revoked_at, OLD.parent_key_id,
             OLD.scan_policy, OLD.scan_target_type, OLD.scan_target_id, OLD.scan_product_id, OLD.scan_user_id)
            IS DISTINCT FROM
            (NEW.key_hash, NEW.company_id, NEW.permissions, NEW.allowed_domains, NEW.tier, NEW.expires_at, NEW.revoked_at, NEW.parent_key_id,
             NEW.scan_policy, NEW.scan_target_type, NEW.scan_target_id, NEW.scan_product_id, NEW.scan_user_id))
      EXECUTE FUNCTION notify_auth_change('key', 'key_hash');
  `);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TRIGGER api_keys_auth_change ON api_keys;
    CREATE TRIGGER api_keys_auth_change AFTER UPDATE ON api_keys FOR EACH ROW
      WHEN ((OLD.key_hash, OLD.company_id, OLD.permissions, OLD.allowed_domains, OLD.tier, OLD.expires_at, OLD.revoked_at, OLD.parent_key_id)
            IS DISTINCT FROM
            (NEW.key_hash, NEW.company_id, NEW.permissions, NEW.allowed_domains, NEW.tier, NEW.expires_at, NEW.revoked_at, NEW.parent_key_id))
      EXECUTE FUNCTION notify_auth_change('key', 'key_hash');
    DROP INDEX api_keys_scan_sessions_idx;
    ALTER TABLE api_keys DROP CONSTRAINT api_keys_scan_scope, DROP COLUMN scan_policy, DROP COLUMN scan_target_type, DROP COLUMN scan_target_id,
      DROP COLUMN scan_product_id, DROP COLUMN scan_user_id;
    ALTER TABLE qr_codes DROP COLUMN scan_policy;
    ALTER TABLE companies DROP COLUMN scan_policy, DROP COLUMN scan_key_seconds;
  `);
};

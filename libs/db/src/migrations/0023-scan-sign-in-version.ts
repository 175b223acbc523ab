/**
 * A scan key that a user signed in to records that user's token version at the sign-in
 * (docs/api/scanning.md "Signing in inside the widget"). The gateway refuses the key once the version moved:
 * a role or password change ends a signed-in scan as it ends the user's tokens (migration 0010), and so does a
 * deactivation. Before, only a deactivation did, so a member turned viewer went on booking with the scan.
 * Keys signed in before this migration have none and count as version 0, as tokens without one do.
 */
import type { MigrationFn } from '../migrator';

export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`ALTER TABLE api_keys ADD COLUMN scan_user_token_version integer`);
};

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`ALTER TABLE api_keys DROP COLUMN scan_user_token_version`);
};

/**
 * QR scan sessions (docs/api/scanning.md): every scan mints a key that reaches only what its code points at.
 * Admins list those keys and revoke them (the revocation notifies every gateway, so the key answers 401 at
 * once); a user of the company signs in inside the scanned widget, which replaces the scan's key with one that
 * names the user (each key names one user or none for its whole life, so the ledger's attribution never changes).
 */
import { QueryTypes, Sequelize, Transaction } from 'sequelize';
import {
  permissionsOfRole,
  AccessDeniedError,
  ApiKey,
  AuthenticationError,
  Company,
  ConflictError,
  Identity,
  NotFoundError,
  PageRequest,
  ScanPolicy,
  generateKeyValue,
  pageWindow,
  recordAudit,
} from '@pi/common';
import type { GatewayContext } from '../context';
import { decoyHash, verifyPassword } from '../auth/passwords';
import { findUserByUsername } from './sessions';

export interface ScanSessionRow {
  id: string;
  name: string;
  prefix: string;
  qr_code: string;
  scan_policy: ScanPolicy;
  scan_target_type: string | null;
  scan_target_id: string | null;
  scan_product_id: string | null;
  scan_user_id: string | null;
  scan_username: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  usage_count: string;
  created_at: Date;
  /** Its signed-in user was deactivated, or their role or password changed, since the sign-in (authenticate.ts). */
  user_ended: boolean;
}

/**
 * The company's scan sessions, newest first; ended ones (revoked, expired, or ended by a change of their
 * signed-in user) only with `include_ended`.
 */
export async function listScanSessions({ sequelize }: GatewayContext, identity: Identity, page: PageRequest & { include_ended: boolean }) {
  const { limit, offset } = pageWindow(page);
  const rows = await sequelize.query<ScanSessionRow & { total_count: string }>(
    `WITH sessions AS (
       SELECT k.id, k.name, k.prefix, k.qr_code, k.scan_policy, k.scan_target_type, k.scan_target_id, k.scan_product_id, k.scan_user_id,
              u.username AS scan_username, k.expires_at, k.revoked_at, k.last_used_at, k.usage_count, k.created_at,
              COALESCE(NOT u.is_active OR u.token_version <> COALESCE(k.scan_user_token_version, 0), false) AS user_ended
         FROM api_keys k LEFT JOIN users u ON u.id = k.scan_user_id
        WHERE k.company_id = $1 AND k.qr_code IS NOT NULL
     )
     SELECT *, count(*) OVER () AS total_count FROM sessions
      WHERE $2::boolean OR (revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) AND NOT user_ended)
      ORDER BY created_at DESC, id DESC
      LIMIT $3 OFFSET $4`,
    { bind: [identity.companyId, page.include_ended, limit, offset], type: QueryTypes.SELECT },
  );
  return { rows, count: rows.length ? Number(rows[0].total_count) : 0 };
}

async function lockScanKey(identity: Identity, id: string, transaction: Transaction): Promise<ApiKey> {
  const row = await ApiKey.findOne({ where: { id, companyId: identity.companyId }, transaction, lock: transaction.LOCK.UPDATE });
  // Other keys of the company are not scan sessions: as absent as another company's.
  if (!row || !row.qrCode) throw new NotFoundError('Scan session not found.');
  return row;
}

export function revokeScanSession({ sequelize }: GatewayContext, identity: Identity, id: string) {
  return sequelize.transaction(async (transaction) => {
    const row = await lockScanKey(identity, id, transaction);
    if (row.revokedAt) throw new ConflictError('key_revoked', 'This scan session has already been revoked.');
    row.revokedAt = new Date();
    await row.save({ transaction });
  });
}

/**
 * Locks the widget key a scan key was minted from (FOR KEY SHARE, what the new key's reference to it takes
 * anyway), before the scan key itself. A rotation or revocation of the widget key locks it and then the keys
 * minted from it; taking them in the same order makes a sign-in wait for the rotation (and then find its key
 * revoked) instead of each holding one row while waiting for the other's (a deadlock).
 */
async function lockWidgetKeyOf(sequelize: Sequelize, scanKeyId: string, transaction: Transaction): Promise<void> {
  await sequelize.query('SELECT id FROM api_keys WHERE id = (SELECT parent_key_id FROM api_keys WHERE id = $1) FOR KEY SHARE', {
    bind: [scanKeyId],
    transaction,
    type: QueryTypes.SELECT,
  });
}

const BAD_CREDENTIALS = 'No active account of this company found with the given credentials.';

/**
 * A user signs in inside a scanned widget: the scan's key is revoked and a new one, for the same code, target,
 * policy and expiry, names the user. Only a scan key may sign in (403 otherwise); a user of another company,
 * an inactive one or a wrong password answers 401 (as a login does, with the same cost for unknown users).
 */
export async function signInToScan(ctx: GatewayContext, identity: Identity, username: string, password: string) {
  const { sequelize, config } = ctx;
  if (!identity.scan) throw new AccessDeniedError();
  const user = await findUserByUsername(ctx, username);
  const passwordOk = await verifyPassword(password, user?.passwordHash ?? (await decoyHash(config.PASSWORD_HASH_COST)));
  if (!user || !passwordOk || !user.isActive || user.companyId !== identity.companyId) throw new AuthenticationError(BAD_CREDENTIALS);
  return sequelize.transaction(async (transaction) => {
    await lockWidgetKeyOf(sequelize, identity.principal.id, transaction);
    const old = await ApiKey.findOne({ where: { id: identity.principal.id, companyId: identity.companyId }, transaction, lock: transaction.LOCK.UPDATE });
    if (!old || old.revokedAt || !old.qrCode) throw new AuthenticationError('Invalid API key.');
    const value = generateKeyValue();
    const minted = await ApiKey.create(
      {
        companyId: old.companyId,
        name: `Scan of ${old.qrCode} by ${user.username}`.slice(0, 100),
        prefix: value.prefix,
        keyHash: value.hash,
        // A signed-in user may do with the target what the user's role allows anyway: a member or an admin books
        // under any policy, a viewer only reads (docs/api/roles-and-audit-log.md).
        permissions: permissionsOfRole(user.role),
        allowedDomains: old.allowedDomains,
        tier: old.tier,
        isWidgetKey: false,
        expiresAt: old.expiresAt,
        usageCount: '0',
        parentKeyId: old.parentKeyId,
        qrCode: old.qrCode,
        scanPolicy: old.scanPolicy,
        scanTargetType: old.scanTargetType,
        scanTargetId: old.scanTargetId,
        scanProductId: old.scanProductId,
        scanUserId: user.id,
        scanUserTokenVersion: user.tokenVersion,
        createdByUserId: user.id,
      },
      { transaction },
    );
    old.revokedAt = new Date();
    await old.save({ transaction });
    return { value: value.value, key: minted, user: { id: user.id, username: user.username } };
  });
}

/** The company's scan settings: the default policy and the scan key's lifetime. */
export async function scanSettings(_ctx: GatewayContext, identity: Identity) {
  const company = await Company.findByPk(identity.companyId, { attributes: ['scanPolicy', 'scanKeySeconds'], rejectOnEmpty: true });
  return company;
}

/** The scan settings as the audit log records them (docs/api/roles-and-audit-log.md): the API's names. */
const auditedScanSettings = (c: Company) => ({ policy: c.scanPolicy, key_lifetime_seconds: c.scanKeySeconds });

/**
 * Changes the company's scan settings, the company row locked, with an audit entry (`company`, `update`) of
 * the fields that changed; a change that changes nothing writes none.
 */
export async function updateScanSettings({ sequelize }: GatewayContext, identity: Identity, changes: { policy?: ScanPolicy; key_lifetime_seconds?: number }) {
  return sequelize.transaction(async (transaction) => {
    // NO KEY UPDATE, not UPDATE: every row the company's requests insert references this one (a key-share
    // lock each), and none of them need wait for, or queue behind, a change of its settings.
    const company = await Company.findByPk(identity.companyId, { rejectOnEmpty: true, transaction, lock: transaction.LOCK.NO_KEY_UPDATE });
    const before = auditedScanSettings(company);
    if (changes.policy !== undefined) company.scanPolicy = changes.policy;
    if (changes.key_lifetime_seconds !== undefined) company.scanKeySeconds = changes.key_lifetime_seconds;
    await company.save({ transaction });
    await recordAudit(transaction, identity.companyId, identity, {
      action: 'update',
      resourceType: 'company',
      resourceId: company.id,
      before,
      after: auditedScanSettings(company),
    });
    return company;
  });
}

/**
 * Company API keys. A value is generated on creation and on rotation, returned once, and stored only as a
 * hash: rotation replaces the hash, so the old value fails on the very next request on every gateway.
 * A revoked key and an expired key are final: changes and rotation answer 409 (`key_revoked`,
 * `key_expired`); an expired key cannot be revived by moving its expiry, a new key is created instead. Either
 * can still be revoked (DELETE), which takes an expired key out of the list.
 */
import type { Transaction, WhereOptions } from 'sequelize';
import {
  ApiKey,
  AuditAction,
  AuditSnapshot,
  ConflictError,
  Identity,
  ListOrdering,
  NotFoundError,
  OrderTerm,
  PageRequest,
  Permission,
  Tier,
  findOwned,
  generateKeyValue,
  pageWindow,
  recordAudit,
  sequelizeOrder,
} from '@pi/common';
import type { GatewayContext } from '../context';

export interface NewApiKey {
  name: string;
  permissions: Permission[];
  allowed_domains: string[];
  expires_at?: Date | null;
}

export type ApiKeyChanges = Partial<NewApiKey>;

/** The company's keys; keys minted for QR scans (one per scan) only with `include_minted`. */
/** What the key list may be sorted by (docs/api/ordering-and-search.md); never-used keys sort last ascending. */
export const API_KEY_ORDERING: ListOrdering = {
  fields: { name: { sql: ['lower(name)', 'name'] }, created_at: 'created_at', last_used_at: 'last_used_at' },
  default: 'created_at',
};

export async function listApiKeys(
  _ctx: GatewayContext,
  identity: Identity,
  page: PageRequest & { include_revoked: boolean; include_minted: boolean; ordering?: OrderTerm[] },
) {
  const where: WhereOptions<ApiKey> = { companyId: identity.companyId };
  if (!page.include_revoked) Object.assign(where, { revokedAt: null });
  if (!page.include_minted) Object.assign(where, { parentKeyId: null });
  return ApiKey.findAndCountAll({ where, order: sequelizeOrder(API_KEY_ORDERING, page.ordering), ...pageWindow(page), raw: true });
}

export function getApiKey(_ctx: GatewayContext, identity: Identity, id: string) {
  return findOwned(ApiKey, id, identity.companyId, { what: 'API key' });
}

/** A key's fields as the audit log records them (docs/api/roles-and-audit-log.md): the value only as "[changed]". */
export function auditedKey(row: ApiKey): AuditSnapshot {
  return {
    name: row.name,
    prefix: row.prefix,
    permissions: row.permissions,
    allowed_domains: row.allowedDomains,
    expires_at: row.expiresAt,
    tier: row.tier,
    revoked_at: row.revokedAt,
    key: row.keyHash,
  };
}

function auditKey(transaction: Transaction, identity: Identity | null, companyId: string, action: AuditAction, row: ApiKey, before: AuditSnapshot | null) {
  return recordAudit(transaction, companyId, identity, {
    action,
    resourceType: 'api_key',
    resourceId: row.id,
    before,
    after: auditedKey(row),
    secretFields: ['key'],
  });
}

export async function createApiKey({ sequelize }: GatewayContext, identity: Identity, input: NewApiKey) {
  const key = generateKeyValue();
  return sequelize.transaction(async (transaction) => {
    const row = await ApiKey.create(
      {
        companyId: identity.companyId,
        name: input.name,
        prefix: key.prefix,
        keyHash: key.hash,
        permissions: input.permissions,
        allowedDomains: input.allowed_domains,
        expiresAt: input.expires_at ?? null,
        tier: 'free',
        isWidgetKey: false,
        usageCount: '0',
        createdByUserId: identity.principal.kind === 'user' ? identity.principal.id : null,
      },
      { transaction },
    );
    await auditKey(transaction, identity, identity.companyId, 'create', row, null);
    return { row, value: key.value };
  });
}

/** Expired by the same clock the gateway's authentication uses. */
const hasExpired = (row: ApiKey) => row.expiresAt !== null && new Date(row.expiresAt).getTime() <= Date.now();

async function lockActiveKey(identity: Identity, id: string, transaction: Transaction, { allowExpired = false } = {}) {
  const row = await findOwned(ApiKey, id, identity.companyId, { transaction, lock: true, what: 'API key' });
  if (row.revokedAt) throw new ConflictError('key_revoked', 'This API key has been revoked.');
  if (!allowExpired && hasExpired(row)) {
    throw new ConflictError('key_expired', 'This API key has expired and cannot be changed or revived; create a new key instead.', {
      expires_at: new Date(row.expiresAt!).toISOString(),
    });
  }
  return row;
}

export function updateApiKey({ sequelize }: GatewayContext, identity: Identity, id: string, changes: ApiKeyChanges) {
  return sequelize.transaction(async (transaction) => {
    const row = await lockActiveKey(identity, id, transaction);
    const before = auditedKey(row);
    if (changes.name !== undefined) row.name = changes.name;
    if (changes.permissions !== undefined) row.permissions = changes.permissions;
    if (changes.allowed_domains !== undefined) row.allowedDomains = changes.allowed_domains;
    if (changes.expires_at !== undefined) row.expiresAt = changes.expires_at;
    await row.save({ transaction });
    if (changes.permissions !== undefined || changes.allowed_domains !== undefined || changes.expires_at !== undefined) {
      await narrowMintedFrom(row, transaction);
    }
    await auditKey(transaction, identity, identity.companyId, 'update', row, before);
    return row;
  });
}

/**
 * Keys minted from a key (QR scans) follow a change of it at once, and never gain by it: an anonymous scan
 * keeps only the permissions the key still has (and ends when none is left; a signed-in scan keeps its user's
 * role's), every scan takes the key's allowed_domains, and none expires later than the key. The key is locked
 * first, then its minted keys, as a rotation does.
 */
async function narrowMintedFrom(parent: ApiKey, transaction: Transaction) {
  await parent.sequelize.query(
    `WITH kept AS (
       SELECT id, ARRAY(SELECT p FROM unnest(permissions) WITH ORDINALITY AS u(p, n) WHERE p = ANY ($2::varchar[]) ORDER BY n)::varchar[] AS permissions
         FROM api_keys WHERE parent_key_id = $1 AND revoked_at IS NULL
     )
     UPDATE api_keys k
        SET permissions = CASE WHEN k.scan_user_id IS NULL AND cardinality(kept.permissions) > 0 THEN kept.permissions ELSE k.permissions END,
            revoked_at = CASE WHEN k.scan_user_id IS NULL AND cardinality(kept.permissions) = 0 THEN now() END,
            allowed_domains = $3::varchar[],
            expires_at = LEAST(k.expires_at, $4::timestamptz)
       FROM kept
      WHERE k.id = kept.id`,
    { bind: [parent.id, parent.permissions, parent.allowedDomains, parent.expiresAt], transaction },
  );
}

/** Keys minted from a key (QR scans) live only as long as it does: rotation and revocation end them. */
async function revokeMintedFrom(keyId: string, transaction: Transaction) {
  await ApiKey.update({ revokedAt: new Date() }, { where: { parentKeyId: keyId, revokedAt: null }, transaction });
}

export function rotateApiKey({ sequelize }: GatewayContext, identity: Identity, id: string) {
  return sequelize.transaction(async (transaction) => {
    const row = await lockActiveKey(identity, id, transaction);
    const before = auditedKey(row);
    const key = generateKeyValue();
    row.prefix = key.prefix;
    row.keyHash = key.hash;
    await row.save({ transaction });
    await revokeMintedFrom(row.id, transaction);
    await auditKey(transaction, identity, identity.companyId, 'rotate', row, before);
    return { row, value: key.value };
  });
}

export function revokeApiKey({ sequelize }: GatewayContext, identity: Identity, id: string) {
  return sequelize.transaction(async (transaction) => {
    const row = await lockActiveKey(identity, id, transaction, { allowExpired: true });
    const before = auditedKey(row);
    row.revokedAt = new Date();
    await row.save({ transaction });
    await revokeMintedFrom(row.id, transaction);
    await auditKey(transaction, identity, identity.companyId, 'revoke', row, before);
  });
}

/** Operator only (`npm run admin -- set-tier`): tiers are set by whoever runs the service; the audit log names the operator. */
export async function setApiKeyTier({ sequelize }: Pick<GatewayContext, 'sequelize'>, id: string, tier: Tier) {
  await sequelize.transaction(async (transaction) => {
    const row = await ApiKey.findByPk(id, { transaction, lock: true });
    if (!row) throw new NotFoundError('API key not found.');
    const before = auditedKey(row);
    row.tier = tier;
    await row.save({ transaction });
    await auditKey(transaction, null, row.companyId, 'set_tier', row, before);
  });
}

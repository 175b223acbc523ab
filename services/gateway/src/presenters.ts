/** The JSON of each identity resource, decided in one place. Key values appear only where they are created. */
import Joi from 'joi';
import { AUDIT_RESOURCE_TYPES, PERMISSIONS, ROLES, TIERS, timestampSchema as timestamp, uuidSchema as uuid } from '@pi/common';
import type { ApiKey, AuditEntry, Company, User } from '@pi/common';

type Row<T> = Pick<T, Extract<keyof T, string>>;

/*
 * The response schemas of these presenters (OpenAPI, services/gateway/src/openapi.ts). Closed objects: a field
 * added to a presenter must be added here too, or the tests' answer check (test/support/openapi.ts) fails.
 */

export const companySchema = Joi.object({
  id: uuid.required(),
  name: Joi.string().required(),
}).id('Company');

export const userSchema = Joi.object({
  id: uuid.required(),
  username: Joi.string().required(),
  email: Joi.string().allow(null).required(),
  role: Joi.string()
    .valid(...ROLES)
    .required()
    .description(
      '`admin`: everything, including users, keys, channels and the audit log; `member`: reads and changes the inventory; `viewer`: reads what a member reads and changes nothing (403 `permission_denied`).',
    ),
  is_active: Joi.boolean().required().description('Deactivated users cannot log in; their tokens stop working at once.'),
  created_at: timestamp.required(),
}).id('User');

const apiKeyFields = {
  id: uuid.required(),
  name: Joi.string().required(),
  prefix: Joi.string().required().description('The first 12 characters of the value (`pik_…`), to tell keys apart.'),
  permissions: Joi.array()
    .items(Joi.string().valid(...PERMISSIONS))
    .required(),
  tier: Joi.string()
    .valid(...TIERS)
    .required()
    .description('Rate-limit tier; set by the operator (`npm run admin -- set-tier`).'),
  allowed_domains: Joi.array().items(Joi.string()).required().description('Origins, host names or `*.` subdomain wildcards; empty: any origin.'),
  expires_at: timestamp.allow(null).required(),
  is_widget_key: Joi.boolean().required().description('The company key QR scans mint short-lived keys from.'),
  minted_from: uuid.allow(null).required().description('For a key minted by a QR scan: the widget key it was minted from.'),
  qr_code: Joi.string().allow(null).required().description('For a key minted by a QR scan: the scanned code.'),
  revoked_at: timestamp.allow(null).required(),
  last_used_at: timestamp.allow(null).required(),
  usage_count: Joi.number().integer().min(0).required(),
  created_at: timestamp.required(),
};

/** A key as listed and read: never its value. */
export const apiKeySchema = Joi.object(apiKeyFields).id('ApiKey');

/** A key as created, rotated or registered: the value, shown this once. */
export const apiKeyWithValueSchema = Joi.object({
  ...apiKeyFields,
  key: Joi.string().required().description('The key value (`pik_` + 40 URL-safe characters), shown this once: only its hash is stored.'),
}).id('ApiKeyWithValue');

export function presentCompany(c: Pick<Company, 'id' | 'name'>) {
  return { id: c.id, name: c.name };
}

export function presentUser(u: Pick<User, 'id' | 'username' | 'email' | 'role' | 'isActive'> & { createdAt?: Date }) {
  return { id: u.id, username: u.username, email: u.email, role: u.role, is_active: u.isActive, created_at: u.createdAt ?? null };
}

export function presentApiKey(k: Row<ApiKey>, value?: string) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    ...(value !== undefined ? { key: value } : {}),
    permissions: k.permissions,
    tier: k.tier,
    allowed_domains: k.allowedDomains,
    expires_at: k.expiresAt,
    is_widget_key: k.isWidgetKey,
    minted_from: k.parentKeyId ?? null,
    qr_code: k.qrCode ?? null,
    revoked_at: k.revokedAt,
    last_used_at: k.lastUsedAt,
    usage_count: Number(k.usageCount),
    created_at: k.createdAt,
  };
}

export const auditEntrySchema = Joi.object({
  id: uuid.required(),
  actor: Joi.object({
    type: Joi.string()
      .valid('user', 'api_key', 'operator')
      .required()
      .description('`operator`: the command line of whoever runs the service (`npm run admin`).'),
    id: uuid.allow(null).required().description('The user or API key; null for the operator.'),
  }).required(),
  action: Joi.string()
    .required()
    .description(
      '`create`, `update`, `delete`, or a named change: `deactivate`, `revoke`, `rotate`, `rotate_secret`, `resume`, `set_tier`, `retry` (a failed delivery sent again).',
    ),
  resource_type: Joi.string()
    .valid(...AUDIT_RESOURCE_TYPES)
    .required(),
  resource_id: uuid.required(),
  changes: Joi.object()
    .unknown(true)
    .required()
    .description(
      'Each changed field, by its API name, as `{before, after}` (null before a creation and after a deletion). Secrets (passwords, key values, channel secrets) show only as "[changed]".',
    ),
  created_at: timestamp.required(),
}).id('AuditEntry');

export function presentAuditEntry(e: Row<AuditEntry>) {
  return {
    id: e.id,
    actor: { type: e.actorType, id: e.actorId },
    action: e.action,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    changes: e.changes,
    created_at: e.createdAt,
  };
}

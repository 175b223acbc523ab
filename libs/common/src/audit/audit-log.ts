/**
 * The audit log's writer (docs/api/roles-and-audit-log.md): who changed which administrative record, when,
 * and each changed field's value before and after. The gateway (users, API keys, the company's scan settings),
 * inventory (products, locations) and monitor (rules, channels, retried deliveries) call it inside the transaction of the change itself, so a change
 * that rolls back leaves no entry, and an entry never records a change that did not happen.
 *
 * Secrets never reach an entry: fields a caller names as secret (password hashes, key hashes, channel
 * secrets) appear only as "[changed]" when they changed, and nowhere else.
 */
import type { Transaction } from 'sequelize';
import type { Identity } from '../identity';
import { AuditEntry } from '../db/models/audit-entry';

export const AUDIT_RESOURCE_TYPES = [
  'user',
  'api_key',
  'notification_channel',
  'monitoring_rule',
  'product_model',
  'location',
  'company',
  'notification_delivery',
] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

/** What was done: the usual three, and the named actions that are neither (a key's rotation, a channel's resume). */
export type AuditAction = 'create' | 'update' | 'delete' | 'deactivate' | 'revoke' | 'rotate' | 'rotate_secret' | 'resume' | 'set_tier' | 'retry';

/** The stand-in for a secret's value: only the fact that it changed is recorded. */
export const SECRET_CHANGED = '[changed]';

/** A record's fields as the API names them (snake_case, JSON values), before or after the change. */
export type AuditSnapshot = Record<string, unknown>;
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

export interface AuditRecord {
  action: AuditAction;
  resourceType: AuditResourceType;
  resourceId: string;
  /** null (or absent) for a creation. */
  before?: AuditSnapshot | null;
  /** null (or absent) for a deletion. */
  after?: AuditSnapshot | null;
  /** Fields whose values never appear, only "[changed]". */
  secretFields?: readonly string[];
}

/** Dates as ISO strings, undefined as null, so that equal values compare equal and read back as stored. */
function normalized(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return value;
}

/** The fields that differ between `before` and `after`, secrets masked. Exported for unit tests. */
export function auditChanges(
  before: AuditSnapshot | null | undefined,
  after: AuditSnapshot | null | undefined,
  secretFields: readonly string[] = [],
): AuditChanges {
  const changes: AuditChanges = {};
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const field of fields) {
    const was = before ? normalized(before[field]) : null;
    const is = after ? normalized(after[field]) : null;
    if (JSON.stringify(was) === JSON.stringify(is)) continue;
    if (secretFields.includes(field)) {
      changes[field] = { before: was === null ? null : SECRET_CHANGED, after: is === null ? null : SECRET_CHANGED };
    } else {
      changes[field] = { before: was, after: is };
    }
  }
  return changes;
}

/**
 * Writes the entries of `records` in `transaction`, the transaction of the change, in one statement. A change
 * that changed nothing writes nothing (a creation and a deletion always write one). `identity` is the caller;
 * null for the operator's command line (`npm run admin`).
 */
export async function recordAudits(transaction: Transaction, companyId: string, identity: Identity | null, records: readonly AuditRecord[]): Promise<void> {
  const rows = records
    .map((record) => ({ record, changes: auditChanges(record.before, record.after, record.secretFields) }))
    .filter(({ record, changes }) => record.action === 'create' || record.action === 'delete' || Object.keys(changes).length > 0)
    .map(({ record, changes }) => ({
      companyId,
      actorType: identity ? identity.principal.kind : ('operator' as const),
      actorId: identity ? identity.principal.id : null,
      action: record.action,
      resourceType: record.resourceType,
      resourceId: record.resourceId,
      changes,
    }));
  if (rows.length) await AuditEntry.bulkCreate(rows, { transaction });
}

/** One entry: see recordAudits. */
export function recordAudit(transaction: Transaction, companyId: string, identity: Identity | null, record: AuditRecord): Promise<void> {
  return recordAudits(transaction, companyId, identity, [record]);
}

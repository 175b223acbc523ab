/**
 * Reading the audit log (docs/api/roles-and-audit-log.md). The services write it, each in the transaction of
 * its own change (libs/common audit/audit-log.ts); the gateway lists it for the company's admins, newest
 * first unless `ordering` says otherwise, by the filters migration 0015 indexes.
 */
import { Op } from 'sequelize';
import type { Sequelize, WhereOptions } from 'sequelize';
import {
  AuditEntry,
  AuditResourceType,
  Identity,
  IdOwner,
  ListOrdering,
  OrderTerm,
  PageRequest,
  ValidationError,
  pageWindow,
  sequelizeOrder,
} from '@pi/common';
import type { GatewayContext } from '../context';

/**
 * What the audit log may be sorted by (docs/api/ordering-and-search.md). `created_at` reads
 * audit_log_company_created_idx (migration 0015); `action` and `resource_type` their indexes of migration 0017.
 */
export const AUDIT_LOG_ORDERING: ListOrdering = {
  fields: { created_at: 'created_at', action: 'action', resource_type: 'resource_type' },
  default: '-created_at',
};

export interface AuditLogFilters extends PageRequest {
  resource_type?: AuditResourceType;
  resource_id?: string;
  actor?: string;
  created_after?: Date;
  created_before?: Date;
  ordering?: OrderTerm[];
}

export function listAuditLog(_ctx: GatewayContext, identity: Identity, filters: AuditLogFilters) {
  if (filters.created_after && filters.created_before && filters.created_after >= filters.created_before) {
    throw new ValidationError({ created_before: 'must be later than created_after' });
  }
  const where: Record<string | symbol, unknown> = { companyId: identity.companyId };
  if (filters.resource_type) where.resourceType = filters.resource_type;
  if (filters.resource_id) where.resourceId = filters.resource_id;
  if (filters.actor) where.actorId = filters.actor;
  const created: Record<symbol, Date> = {};
  if (filters.created_after) created[Op.gte] = filters.created_after;
  if (filters.created_before) created[Op.lt] = filters.created_before;
  if (Object.getOwnPropertySymbols(created).length) where.createdAt = created;
  return AuditEntry.findAndCountAll({
    where: where as WhereOptions<AuditEntry>,
    order: sequelizeOrder(AUDIT_LOG_ORDERING, filters.ordering),
    ...pageWindow(filters),
    raw: true,
  });
}

/**
 * The filters' owners are read through the connection the log's model is registered on (the one `listAuditLog`
 * reads), so that the list's operation can name them where it is declared, before any context exists.
 */
const connection = (): Sequelize => AuditEntry.sequelize!;

/**
 * The owners of a `resource_id` filter: the companies whose log names it. The record itself may be gone (a
 * deleted product or rule), and its entries still belong to the company that changed it.
 */
export const auditedResourceOwner: IdOwner = {
  what: 'Audited record',
  owners: async (id, companyId) => {
    const [rows] = await connection().query(
      `SELECT company_id FROM audit_log WHERE resource_id = $1 AND company_id = $2
         UNION ALL (SELECT company_id FROM audit_log WHERE resource_id = $1 LIMIT 1) LIMIT 1`,
      { bind: [id, companyId] },
    );
    return (rows as Array<{ company_id: string }>).map((r) => r.company_id);
  },
};

/** The owners of an `actor` filter: the company of that user or API key. */
export const actorOwner: IdOwner = {
  what: 'User or API key',
  owners: async (id) => {
    const [rows] = await connection().query('SELECT company_id FROM users WHERE id = $1 UNION ALL SELECT company_id FROM api_keys WHERE id = $1', {
      bind: [id],
    });
    return (rows as Array<{ company_id: string }>).map((r) => r.company_id);
  },
};

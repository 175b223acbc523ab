/** /api/v1/audit-log/: who changed what, for the company's admins (docs/api/roles-and-audit-log.md). */
import { buildPage, endpoints, pageSchema, type Call } from '@pi/common';
import { AuditLogFilters, actorOwner, auditedResourceOwner, listAuditLog } from '../../commands/audit-log';
import type { GatewayContext } from '../../context';
import { auditEntrySchema, presentAuditEntry } from '../../presenters';
import { listAuditLogQuery } from './schema';

export const auditLogEndpoints = endpoints<GatewayContext>({
  method: 'get',
  path: '/api/v1/audit-log/',
  operationId: 'listAuditLog',
  tag: 'audit-log',
  summary: 'List the audit log',
  description:
    "Changes to users, API keys, notification channels, monitoring rules, product models, locations, the company's settings and " +
    'retried deliveries, newest first (or by `ordering`): who ' +
    '(a user, an API key or the operator), when, and each changed field before and after. Secrets never appear. Admins only. ' +
    "An id filter naming another company's user, key or record answers 403 `access_denied`; one that names nothing, 404.",
  security: 'bearer',
  adminOnly: true,
  request: { query: listAuditLogQuery },
  responses: { 200: { description: 'One page of entries.', schema: pageSchema(auditEntrySchema, 'AuditEntryPage') } },
  ownedFilters: { actor: actorOwner, resource_id: auditedResourceOwner },
  handle: async (ctx, { query, identity, req }: Call<AuditLogFilters>) => {
    const { rows, count } = await listAuditLog(ctx, identity, query);
    return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentAuditEntry));
  },
});

/** The audit log of administrative changes, for admins (docs/api/roles-and-audit-log.md). */
import { operations, pageSchema } from '@pi/common';
import { auditEntrySchema } from '../../presenters';
import { listAuditLogQuery } from './schema';

export const auditLogOperations = operations({
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
});

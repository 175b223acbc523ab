/** HTTP shapes of /api/v1/audit-log/. */
import Joi from 'joi';
import { AUDIT_RESOURCE_TYPES, orderingQuery, schemas } from '@pi/common';
import { AUDIT_LOG_ORDERING } from '../../commands/audit-log';

export const listAuditLogQuery = Joi.object({
  ...schemas.pagination,
  resource_type: Joi.string().valid(...AUDIT_RESOURCE_TYPES),
  resource_id: schemas.uuid.description('The changed record: it may be gone since (a deleted product, a revoked key).'),
  actor: schemas.uuid.description('Who made the change: a user id or an API key id.'),
  created_after: schemas.timestamp.description('Entries at or after this instant.'),
  created_before: schemas.timestamp.description('Entries before this instant.'),
  ordering: orderingQuery(AUDIT_LOG_ORDERING),
});

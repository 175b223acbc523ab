/** /api/v1/audit-log/: who changed what, for the company's admins (docs/api/roles-and-audit-log.md). */
import { Router } from 'express';
import { ROUTER_OPTIONS, buildPage, ownedFilters, validate } from '@pi/common';
import { authenticateUser, requireAdmin } from '../../auth/authenticate';
import { AuditLogFilters, actorOwner, auditedResourceOwner, listAuditLog } from '../../commands/audit-log';
import type { GatewayContext } from '../../context';
import { presentAuditEntry } from '../../presenters';
import { listAuditLogQuery } from './schema';

export function auditLogRouter(ctx: GatewayContext): Router {
  const { config, credentials } = ctx;
  const router = Router(ROUTER_OPTIONS);
  const base = '/api/v1/audit-log';
  router.use(base, authenticateUser(config.JWT_SECRET, credentials), requireAdmin);

  router.get(
    `${base}/`,
    validate({ query: listAuditLogQuery }),
    ownedFilters({ actor: actorOwner(ctx), resource_id: auditedResourceOwner(ctx) }),
    async (req, res) => {
      const filters = req.query as unknown as AuditLogFilters;
      const { rows, count } = await listAuditLog(ctx, req.identity!, filters);
      res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentAuditEntry)));
    },
  );
  return router;
}

/** /api/v1/audit-log/: who changed what, for the company's admins (docs/api/roles-and-audit-log.md). */
import { Router } from 'express';
import { ROUTER_OPTIONS, buildPage, ownedFilters, validate } from '@pi/common';
import { authenticateUser, requireAdmin } from '../../auth/authenticate';
import { AuditLogFilters, actorOwner, auditedResourceOwner, listAuditLog } from '../../commands/audit-log';
import type { GatewayDeps } from '../../deps';
import { presentAuditEntry } from '../../presenters';
import { listAuditLogQuery } from './schema';

export function auditLogRouter({ config, sequelize, credentials }: GatewayDeps): Router {
  const router = Router(ROUTER_OPTIONS);
  const base = '/api/v1/audit-log';
  router.use(base, authenticateUser(config.JWT_SECRET, credentials), requireAdmin);

  router.get(
    `${base}/`,
    validate({ query: listAuditLogQuery }),
    ownedFilters({ actor: actorOwner(sequelize), resource_id: auditedResourceOwner(sequelize) }),
    async (req, res) => {
      const filters = req.query as unknown as AuditLogFilters;
      const { rows, count } = await listAuditLog(req.identity!, filters);
      res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentAuditEntry)));
    },
  );
  return router;
}

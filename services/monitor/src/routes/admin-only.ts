/**
 * Channels and their delivery log are managed by the company's admins only (docs/api/monitoring-and-notifications.md: "only admins
 * manage users, keys and channels"); members and API keys get 403 `permission_denied`.
 */
import type { RequestHandler } from 'express';
import { PermissionDeniedError } from '@pi/common';

export const requireAdmin: RequestHandler = (req, _res, next) => {
  if (req.identity?.principal.kind !== 'user' || req.identity.role !== 'admin') {
    return next(new PermissionDeniedError('Only company admins can manage notification channels and read their deliveries.'));
  }
  next();
};

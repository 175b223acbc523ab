/**
 * The Express skeleton every internal service shares: request id, request metrics, access log, health
 * endpoints (open, for probes), `/metrics` (for the scraper: docs/operations/metrics.md), the internal-auth
 * wall (gateway tokens only), the path gate (only the service's documented templates, spelled by the
 * gateway's rules: http/paths.ts), JSON body parsing, the request's deadline (from
 * the gateway, believed only behind the internal-auth wall), the service's public routes (anonymous gateway
 * tokens allowed), then its authenticated routes, 404 and the error shape.
 */
import express, { Express, RequestHandler, Router } from 'express';
import { requireIdentity, requireInternalAuth } from '../auth/internal-token';
import type { Database } from '../db/database';
import type { Logger } from '../logger';
import { accessLog } from './access-log';
import { errorMiddleware, notFoundMiddleware } from './error-middleware';
import { healthRouter } from './health';
import { httpMetrics } from '../metrics/http';
import { metricsRouter } from '../metrics/endpoint';
import { registerPoolMetrics } from '../metrics/pool';
import type { MetricsRegistry } from '../metrics/registry';
import { jsonBody } from './json-body';
import { pathGate } from './paths';
import { requestDeadline } from './request-deadline';
import { requestId } from './request-id';
import { PermissionDeniedError } from '../errors';
import { permissionForMethod } from '../identity';

/** Defence in depth: the gateway checks permissions, and so does every service, from the signed identity. */
function requireMethodPermission(): RequestHandler {
  return (req, _res, next) => {
    const needed = permissionForMethod(req.method);
    if (!req.identity?.permissions.includes(needed)) return next(new PermissionDeniedError(`Missing the '${needed}' permission.`));
    next();
  };
}

export interface ServiceAppOptions {
  logger: Logger;
  db: Database;
  internalJwtSecret: string;
  bodyLimit?: string;
  /** The path templates the service answers (its documented operations' paths: `pathsOf(api)`); nothing else gets through. */
  paths: string[];
  /** Extra readiness checks besides the database (e.g. Redis). */
  readinessChecks?: Array<() => Promise<void>>;
  /**
   * The service's registry: its requests and database pool are measured into it and `GET /metrics` serves it
   * beside the probes, outside the internal-auth wall (docs/operations/metrics.md). Without it: no metrics.
   */
  metrics?: { registry: MetricsRegistry; token?: string };
}

export function createServiceApp(opts: ServiceAppOptions, routes: Router, publicRoutes?: Router): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use(requestId());
  if (opts.metrics) {
    app.use(httpMetrics(opts.metrics.registry));
    registerPoolMetrics(opts.metrics.registry, opts.db.sequelize);
  }
  app.use(accessLog(opts.logger));
  app.use(healthRouter(opts.db, opts.readinessChecks));
  if (opts.metrics) app.use(metricsRouter(opts.metrics.registry, { token: opts.metrics.token }));
  app.use(requireInternalAuth(opts.internalJwtSecret));
  app.use(pathGate(opts.paths));
  app.use(jsonBody({ limit: opts.bodyLimit ?? '1mb' }));
  // After the body parser, which would otherwise lose the deadline's context.
  app.use(requestDeadline(opts.logger));
  if (publicRoutes) app.use(publicRoutes);
  app.use(requireIdentity);
  app.use(requireMethodPermission());
  app.use(routes);
  app.use(notFoundMiddleware());
  app.use(errorMiddleware(opts.logger));
  return app;
}

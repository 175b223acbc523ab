/**
 * The public entry point: request id, the public path table (every path resolved once, by one set of rules,
 * to the documented route it reaches or to a 404: http/public-paths.ts), security headers, access log, JSON
 * parsing, the gateway's own identity routes, then every other public path authenticated and proxied to its
 * owning service. Every policy below reads the route from `req.publicPath`, never from a pattern of its own.
 */
import express, { Express, RequestHandler } from 'express';
import { accessLog, errorMiddleware, httpMetrics, jsonBody, notFoundMiddleware, registerPoolMetrics, requestId } from '@pi/common';
import { authenticateApiKey, authenticateUser } from './auth/authenticate';
import { CredentialCache } from './auth/credential-cache';
import type { GatewayContext } from './context';
import { publicPathTable } from './proxy/route-table';
import { AuthKind, SERVICE_NAMES, ServiceName, refuseUnroutedPaths, resolvePublicPath } from './http/public-paths';
import { createServiceProxy } from './proxy/service-proxy';
import { deprecationHeaders, deprecationTable } from './proxy/deprecations';
import { gatewayRouter } from './routes/gateway-router';
import { healthEndpoints } from './routes/health/endpoints';
import { accountEndpoints, signInEndpoints } from './openapi';
import { cors, parseDashboardOrigins, widgetKeyCors } from './http/cors';
import { methodNotAllowed, methodNotAllowedAfterApiKey } from './http/methods';
import { SERVICE_APIS } from './docs/apis';
import { buildOpenApiDocument } from './docs/document';
import { schemaRouter } from './docs/schema-router';
import { docsUiRouter } from './docs/ui';
import { securityHeaders } from './http/security-headers';
import { pagesRouter } from './pages/router';
import {
  RateLimits,
  anonymousGatewayLimiter,
  assertRateLimitsKnown,
  createRateLimits,
  ownUserRoutesLimiter,
  routeLimiter,
  trustProxySetting,
} from './rate-limits';

/**
 * `rateLimits` is built from the config when not given (main.ts passes its own to close it on shutdown);
 * without `credentials` nothing is cached (a started CredentialCache is what hears about changes).
 */
export function createGatewayApp(
  given: Omit<GatewayContext, 'credentials'> & { credentials?: CredentialCache },
  rateLimits: RateLimits = createRateLimits(given.config, given.logger),
): Express {
  const ctx: GatewayContext = { ...given, credentials: given.credentials ?? new CredentialCache(given.sequelize, { ttlMs: 0 }) };
  const { config, logger } = ctx;
  const paths = publicPathTable();
  assertRateLimitsKnown(paths.routes.flatMap((route) => [...route.operations.values()]));
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // The client address of rate limits: X-Forwarded-For is believed only from TRUSTED_PROXIES.
  app.set('trust proxy', trustProxySetting(config.TRUSTED_PROXIES));
  app.use(requestId());
  if (ctx.metrics) {
    // Labelled by the documented template the public path table resolved (read once the answer is sent).
    app.use(httpMetrics(ctx.metrics, { routeOf: (req) => req.publicPath?.route.template }));
    registerPoolMetrics(ctx.metrics, ctx.sequelize);
  }
  // First: everything after this sees the path as the table spells it, and which route it is.
  app.use(resolvePublicPath(paths));
  app.use(securityHeaders(config.PUBLIC_BASE_URL));
  app.use(accessLog(logger));
  app.use(refuseUnroutedPaths());
  // Before the rate limiters and authentication: a preflight carries no credentials (docs/api/rate-limits-cors-headers.md "CORS and methods").
  app.use(cors({ dashboardOrigins: parseDashboardOrigins(config.DASHBOARD_ORIGINS) }));
  app.use(gatewayRouter(ctx, healthEndpoints));
  app.use(jsonBody({ limit: config.BODY_LIMIT }));
  const deprecations = deprecationTable(config);
  app.use(deprecationHeaders(deprecations));

  app.use(anonymousGatewayLimiter(rateLimits));
  // 405 before authentication here; for widget paths after the API key, in the dispatcher.
  app.use(methodNotAllowed());
  // A path a service owns goes straight to it: the gateway's own routers below never answer one, and
  // walking them cost every proxied request (docs/operations/benchmarks.md).
  app.use(serviceDispatcher(ctx, rateLimits));
  app.use(schemaRouter(() => buildOpenApiDocument({ apis: SERVICE_APIS, deprecations })));
  app.use(docsUiRouter());
  app.use(pagesRouter(ctx));
  // Each of the gateway's own endpoints is authenticated as its `security` says (routes/gateway-router.ts).
  app.use(gatewayRouter(ctx, signInEndpoints));
  app.use(ownUserRoutesLimiter(rateLimits, config.JWT_SECRET));
  app.use(gatewayRouter(ctx, accountEndpoints));

  app.use(notFoundMiddleware());
  app.use(errorMiddleware(logger));
  return app;
}

/** Authenticates a request whose path a service owns (by the public path table) and hands it to that service's proxy. */
function serviceDispatcher(ctx: GatewayContext, rateLimits: RateLimits): RequestHandler {
  const { config, logger } = ctx;
  const proxyOptions = { internalJwtSecret: config.INTERNAL_JWT_SECRET, timeoutMs: config.PROXY_TIMEOUT_MS, logger };
  const targets: Record<ServiceName, string> = { inventory: config.INVENTORY_URL, qr: config.QR_URL, monitor: config.MONITOR_URL };
  const proxies = Object.fromEntries(SERVICE_NAMES.map((name) => [name, createServiceProxy({ ...proxyOptions, target: targets[name] })])) as Record<
    ServiceName,
    RequestHandler
  >;
  const ownOrigin = new URL(config.PUBLIC_BASE_URL).origin;
  const authenticators: Record<AuthKind, RequestHandler> = {
    none: (_req, _res, next) => next(),
    user: authenticateUser(config.JWT_SECRET, ctx.credentials),
    api_key: authenticateApiKey(ctx.usage, ownOrigin, ctx.credentials),
  };
  // The CORS answer of a widget request that takes a key, decided by the key once it is accepted.
  const keyCors = widgetKeyCors(ownOrigin);
  const limiters: Record<AuthKind, RequestHandler> = {
    none: routeLimiter(rateLimits, 'none'),
    user: routeLimiter(rateLimits, 'user'),
    api_key: routeLimiter(rateLimits, 'api_key'),
  };
  // Widget paths check the key before the method: every method needs a permission (docs/api/authentication.md), 401/403 first.
  const afterApiKey = methodNotAllowedAfterApiKey();
  return (req, res, next) => {
    const service = req.publicPath?.service;
    if (!service) return next();
    const auth = req.publicPath!.route.auth;
    const forward = (err?: unknown) => (err ? next(err) : proxies[service](req, res, next));
    const proxy = (err?: unknown) => (err ? next(err) : auth === 'api_key' ? afterApiKey(req, res, forward) : forward());
    const limit = (err?: unknown) => (err ? next(err) : limiters[auth](req, res, proxy));
    const allowOrigin = (err?: unknown) => (err ? next(err) : auth === 'api_key' ? keyCors(req, res, limit) : limit());
    void Promise.resolve(authenticators[auth](req, res, allowOrigin)).catch(next);
  };
}

/**
 * The public entry point: request id, security headers, access log, JSON parsing, the gateway's own identity
 * routes, then every other public path authenticated and proxied to its owning service (proxy/route-table.ts).
 */
import express, { Express, RequestHandler } from 'express';
import { accessLog, errorMiddleware, notFoundMiddleware, requestId } from '@pi/common';
import { authenticateApiKey, authenticateUser } from './auth/authenticate';
import { CredentialCache } from './auth/credential-cache';
import type { GatewayDeps } from './deps';
import { AuthKind, ServiceName, routeFor } from './proxy/route-table';
import { createServiceProxy } from './proxy/service-proxy';
import { deprecationHeaders, deprecationTable } from './proxy/deprecations';
import { apiKeysRouter } from './routes/api-keys/router';
import { registerRouter } from './routes/register/router';
import { tokenRouter } from './routes/token/router';
import { usersRouter } from './routes/users/router';
import { gatewayHealthRouter } from './routes/health';
import { cors, parseDashboardOrigins } from './http/cors';
import { MethodTable, methodNotAllowed, methodNotAllowedAfterApiKey, methodTable } from './http/methods';
import { SERVICE_APIS, allOperations } from './docs/apis';
import { buildOpenApiDocument } from './docs/document';
import { schemaRouter } from './docs/schema-router';
import { docsUiRouter } from './docs/ui';
import { securityHeaders } from './http/security-headers';
import { pagesRouter } from './pages/router';
import { RateLimits, anonymousGatewayLimiter, createRateLimits, ownUserRoutesLimiter, routeLimiter, trustProxySetting } from './rate-limits';

/**
 * `rateLimits` is built from the config when not given (main.ts passes its own to close it on shutdown);
 * without `credentials` nothing is cached (a started CredentialCache is what hears about changes).
 */
export function createGatewayApp(
  given: Omit<GatewayDeps, 'credentials'> & { credentials?: CredentialCache },
  rateLimits: RateLimits = createRateLimits(given.config, given.logger),
): Express {
  const deps: GatewayDeps = { ...given, credentials: given.credentials ?? new CredentialCache(given.sequelize, { ttlMs: 0 }) };
  const { config, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The client address of rate limits: X-Forwarded-For is believed only from TRUSTED_PROXIES.
  app.set('trust proxy', trustProxySetting(config.TRUSTED_PROXIES));
  app.use(requestId());
  app.use(securityHeaders(config.PUBLIC_BASE_URL));
  app.use(accessLog(logger));
  // Before the rate limiters and authentication: a preflight carries no credentials (README "CORS and methods").
  app.use(cors({ dashboardOrigins: parseDashboardOrigins(config.DASHBOARD_ORIGINS) }));
  app.use(gatewayHealthRouter(deps));
  app.use(express.json({ limit: config.BODY_LIMIT }));
  const deprecations = deprecationTable(config);
  app.use(deprecationHeaders(deprecations));

  app.use(anonymousGatewayLimiter(rateLimits));
  // One method table for both 405 checks: before authentication here, after the API key in the dispatcher.
  const methods = methodTable(allOperations());
  app.use(methodNotAllowed(methods));
  app.use(schemaRouter(buildOpenApiDocument({ apis: SERVICE_APIS, deprecations })));
  app.use(docsUiRouter());
  app.use(pagesRouter());
  app.use(tokenRouter(config));
  app.use(registerRouter(deps));
  app.use(ownUserRoutesLimiter(rateLimits, config.JWT_SECRET));
  app.use(usersRouter(deps));
  app.use(apiKeysRouter(deps));
  app.use(serviceDispatcher(deps, rateLimits, methods));

  app.use(notFoundMiddleware());
  app.use(errorMiddleware(logger));
  return app;
}

/** Authenticates a request the route table claims and hands it to that service's proxy. */
function serviceDispatcher(deps: GatewayDeps, rateLimits: RateLimits, methods: MethodTable): RequestHandler {
  const { config, logger } = deps;
  const proxyOptions = { internalJwtSecret: config.INTERNAL_JWT_SECRET, timeoutMs: config.PROXY_TIMEOUT_MS, logger };
  const proxies: Record<ServiceName, RequestHandler> = {
    inventory: createServiceProxy({ ...proxyOptions, target: config.INVENTORY_URL }),
    qr: createServiceProxy({ ...proxyOptions, target: config.QR_URL }),
    monitor: createServiceProxy({ ...proxyOptions, target: config.MONITOR_URL }),
  };
  const authenticators: Record<AuthKind, RequestHandler> = {
    none: (_req, _res, next) => next(),
    user: authenticateUser(config.JWT_SECRET, deps.credentials),
    api_key: authenticateApiKey(deps.usage, new URL(config.PUBLIC_BASE_URL).origin, deps.credentials),
  };
  const limiters: Record<AuthKind, RequestHandler> = {
    none: routeLimiter(rateLimits, 'none'),
    user: routeLimiter(rateLimits, 'user'),
    api_key: routeLimiter(rateLimits, 'api_key'),
  };
  // Widget paths check the key before the method: every method needs a permission (SPEC.md), 401/403 first.
  const afterApiKey: Record<ServiceName, RequestHandler> = {
    inventory: methodNotAllowedAfterApiKey(methods, 'inventory'),
    qr: methodNotAllowedAfterApiKey(methods, 'qr'),
    monitor: methodNotAllowedAfterApiKey(methods, 'monitor'),
  };
  return (req, res, next) => {
    const route = routeFor(req.path);
    if (!route) return next();
    const forward = (err?: unknown) => (err ? next(err) : proxies[route.service](req, res, next));
    const proxy = (err?: unknown) => (err ? next(err) : route.auth === 'api_key' ? afterApiKey[route.service](req, res, forward) : forward());
    const limit = (err?: unknown) => (err ? next(err) : limiters[route.auth](req, res, proxy));
    void Promise.resolve(authenticators[route.auth](req, res, limit)).catch(next);
  };
}

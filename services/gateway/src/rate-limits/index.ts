/**
 * Which counters a request is charged to. app.ts places the middlewares: the login limiter before the token
 * router, the gateway's own bearer routes before their routers, and the rest inside the service dispatcher
 * once the caller is authenticated (or known to be anonymous). Which operation a request is, and so which
 * scopes it counts against, is read from the public path table (`req.publicPath`), never from a pattern of
 * its own: a spelling that reaches an operation reaches its counters.
 */
import type { Request, RequestHandler } from 'express';
import type { GatewayConfig } from '../config';
import type { ApiOperation, Logger } from '@pi/common';
import { verifyUserToken } from '../auth/user-tokens';
import type { AuthKind } from '../http/public-paths';
import { RateLimits, clientAddress } from './limiter';
import { ANONYMOUS_GATEWAY_OPERATIONS, RateLimitScope, effectiveLimits, operationScopes, parseRateLimitOverrides } from './limits';

export { RateLimits, RateLimitedError, clientAddress } from './limiter';
export { RATE_LIMIT_SCOPES, SPEC_LIMITS, assertRateLimitsKnown, effectiveLimits, parseRateLimitOverrides } from './limits';
export type { RateLimit, RateLimitScope } from './limits';

type Plan = Array<[RateLimitScope, string | undefined]>;

export function createRateLimits(config: GatewayConfig, logger: Logger): RateLimits {
  return new RateLimits({
    enabled: config.RATE_LIMITS === 'on',
    limits: effectiveLimits(parseRateLimitOverrides(config.RATE_LIMIT_OVERRIDES)),
    redisUrl: config.REDIS_URL,
    keyPrefix: config.RATE_LIMIT_KEY_PREFIX,
    logger,
  });
}

/** `TRUSTED_PROXIES` as Express's `trust proxy` value (false: only the socket peer counts). */
export function trustProxySetting(trustedProxies: string): string[] | false {
  const list = trustedProxies
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length > 0 ? list : false;
}

/** The operation a request reaches (undefined for a method the path lacks) and the owner of its path. */
function operationOf(req: Request): { operation?: ApiOperation; owner?: string } {
  return { operation: req.publicPath?.operationFor(req.method), owner: req.publicPath?.owner };
}

/** Login endpoints (10/min per client address); logins and registrations are also anonymous requests. */
export function anonymousGatewayLimiter(limits: RateLimits): RequestHandler {
  return limits.middleware((req): Plan => {
    const { operation, owner } = operationOf(req);
    if (owner !== 'gateway' || !operation || !ANONYMOUS_GATEWAY_OPERATIONS.has(operation.operationId)) return [];
    const ip = clientAddress(req);
    return [...operationScopes(operation).map((scope): [RateLimitScope, string] => [scope, ip]), ['anonymous_daily', ip]];
  });
}

/**
 * The gateway's own bearer routes (users, API keys) authenticate inside their routers; their requests count
 * against the user's daily budget here, from the verified token (an invalid one is left to the router's 401).
 */
export function ownUserRoutesLimiter(limits: RateLimits, jwtSecret: string): RequestHandler {
  return limits.middleware((req): Plan => {
    const route = req.publicPath?.route;
    if (route?.owner !== 'gateway' || route.auth !== 'user') return [];
    const match = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '');
    if (!match) return [];
    try {
      return [['user_daily', verifyUserToken(match[1], 'access', jwtSecret).sub]];
    } catch {
      return [];
    }
  });
}

/** For a route of the route table, after authentication. */
export function planFor(auth: AuthKind, req: Request): Plan {
  const specific = operationScopes(operationOf(req).operation);
  const identity = req.identity;
  if (auth === 'api_key' && identity) {
    const budgetKey = identity.budgetKeyId ?? identity.principal.id;
    const plan: Plan = [
      ['widget_burst', budgetKey],
      [`widget_${identity.tier ?? 'free'}`, budgetKey],
    ];
    for (const scope of specific) plan.push([scope, scope === 'qr_api' ? budgetKey : identity.companyId]);
    return plan;
  }
  if (auth === 'user' && identity) {
    const plan: Plan = [];
    for (const scope of specific) plan.push([scope, scope === 'qr_api' ? identity.principal.id : identity.companyId]);
    plan.push(['user_daily', identity.principal.id]);
    return plan;
  }
  const ip = clientAddress(req);
  return [...specific.map((scope): [RateLimitScope, string] => [scope, ip]), ['anonymous_daily', ip]];
}

export function routeLimiter(limits: RateLimits, auth: AuthKind): RequestHandler {
  return limits.middleware((req) => planFor(auth, req));
}

/**
 * Authentication at the gateway. Dashboard users send `Authorization: Bearer <access>`; widgets and scripts
 * send a company API key, looked up in the documented order (docs/api/authentication.md): query `api_key`, header `X-API-Key`, body `api_key`.
 * Each sets `req.identity`, which the proxy forwards to the services in the internal token.
 */
import type { Request, RequestHandler } from 'express';
import {
  AuthenticationError,
  Identity,
  Permission,
  PermissionDeniedError,
  hashKeyValue,
  looksLikeKeyValue,
  permissionForMethod,
  permissionsOfRole,
} from '@pi/common';
import { EMBEDDING_ORIGIN_HEADER, keyAllowsOrigin, originToCheck } from './allowed-origins';
import type { CredentialCache } from './credential-cache';
import type { UsageRecorder } from './usage-recorder';
import { verifyUserToken } from './user-tokens';

/** The key value a request carries, in the documented lookup order. */
export function keyValueFrom(req: Request): unknown {
  const fromQuery = (req.query as Record<string, unknown>).api_key;
  if (fromQuery !== undefined) return fromQuery;
  const fromHeader = req.get('x-api-key');
  if (fromHeader !== undefined) return fromHeader;
  return (req.body as Record<string, unknown> | undefined)?.api_key;
}

export function authenticateUser(jwtSecret: string, credentials: CredentialCache): RequestHandler {
  return async (req, _res, next) => {
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) return next(new AuthenticationError('Missing bearer token.'));
    const claims = verifyUserToken(match[1], 'access', jwtSecret);
    // Checked on each request (from the credential cache, which every change empties at once) so that a
    // deactivated user, and tokens issued before a password or role change, are refused at once.
    const user = await credentials.user(claims.sub);
    if (!user || !user.isActive || user.companyId !== claims.cid) return next(new AuthenticationError('User is inactive or unknown.'));
    if (user.tokenVersion !== claims.ver) return next(new AuthenticationError('Token has been revoked.'));
    const permissions = permissionsOfRole(user.role);
    req.identity = { companyId: user.companyId, principal: { kind: 'user', id: user.id }, permissions, role: user.role };
    // A viewer holds `read` only: every write, here or behind the proxy, stops at the gateway (docs/api/roles-and-audit-log.md).
    const needed = permissionForMethod(req.method);
    if (!permissions.includes(needed)) return next(new PermissionDeniedError('Your role (viewer) can read but not change anything.'));
    next();
  };
}

/**
 * `ownOrigin` is the origin of PUBLIC_BASE_URL: the widget page this service serves calls the API from it,
 * scanned or embedded, so a key's `allowed_domains` (which name the embedding sites) never shut it out; an
 * embedded widget page is judged by the page around it instead (`originToCheck`).
 */
export function authenticateApiKey(
  usage: UsageRecorder,
  ownOrigin: string,
  credentials: CredentialCache,
  /** The permission needed, when not the method's (a scan signs in with POST under the `read` policy too). */
  permission?: Permission,
): RequestHandler {
  return async (req, res, next) => {
    const value = keyValueFrom(req);
    if (value === undefined) return next(new AuthenticationError('API key required.'));
    if (!looksLikeKeyValue(value)) return next(new AuthenticationError('Invalid API key.'));
    const hash = hashKeyValue(value);
    let key = await credentials.apiKey(hash);
    // The scan of a VIRGIN code gains its target when a signed-in user links the code (in the QR service):
    // its next request must not wait for the change notification, so such keys are read afresh (rare: set-up only).
    if (key?.scan && !key.scan.targetType) key = await credentials.apiKey(hash, { fresh: true });
    if (!key || key.revokedAt) return next(new AuthenticationError('Invalid API key.'));
    if (key.expiresAt && new Date(key.expiresAt).getTime() <= Date.now()) return next(new AuthenticationError('API key has expired.'));
    usage.record(key.id);
    const needed = permission ?? permissionForMethod(req.method);
    if (!key.permissions.includes(needed)) return next(new PermissionDeniedError(`API key lacks the '${needed}' permission.`));
    const origin = originToCheck(req.get('origin'), req.get(EMBEDDING_ORIGIN_HEADER), ownOrigin);
    if (origin && !keyAllowsOrigin(origin, key.allowedDomains, ownOrigin)) {
      return next(new PermissionDeniedError('Origin not allowed for this API key.', 'origin_not_allowed'));
    }
    if (key.scan?.userId) {
      // A scan signed in by a user lasts only while that user's tokens would: a deactivation, or a change of
      // role or password (which moves the token version), ends it at once.
      const user = await credentials.user(key.scan.userId);
      if (!user || !user.isActive || user.companyId !== key.companyId || user.tokenVersion !== key.scanUserTokenVersion)
        return next(new AuthenticationError('The user who signed in to this scan was deactivated, or their role or password changed: scan the code again.'));
    }
    // What the CORS answer asks the key (http/cors.ts, widgetKeyCors).
    res.locals.apiKeyAllowedDomains = key.allowedDomains;
    const identity: Identity = {
      companyId: key.companyId,
      principal: { kind: 'api_key', id: key.id },
      permissions: key.permissions,
      tier: key.tier,
      budgetKeyId: key.parentKeyId ?? key.id,
      // The scope travels to the services in the internal token; they enforce it where the data is.
      ...(key.scan ? { scan: key.scan } : {}),
    };
    req.identity = identity;
    next();
  };
}

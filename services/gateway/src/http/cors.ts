/**
 * CORS at the gateway (docs/api/rate-limits-cors-headers.md "CORS and methods"), with the `cors` package. Two
 * policies:
 * - widget paths (`/api/v1/widget/…`): a preflight is answered for any origin without credentials (a browser
 *   sends none, so the key's `allowed_domains` can't be known yet); the actual request gets
 *   `Access-Control-Allow-Origin` only once its API key has been accepted, decided by the key itself
 *   (`widgetKeyCors`, run after authentication, whose origin callback asks the key's `allowed_domains`); a
 *   refusal before that (401, 403 `origin_not_allowed`) carries no CORS header. The public `exchange_token/`
 *   echoes any origin;
 * - core paths (every other `/api/…`): only origins listed in `DASHBOARD_ORIGINS`; a preflight from any other
 *   origin is refused with 403 `origin_not_allowed`, an actual request from one gets no CORS headers.
 * No `Access-Control-Allow-Credentials`: callers use bearer tokens and API keys, never cookies.
 * Which policy a path has comes from the public path table (`req.publicPath`, http/public-paths.ts), like
 * every other policy: a path the table does not take gets no CORS headers (it is answered 404).
 */
import corsPackage, { type CorsOptions } from 'cors';
import type { Request, RequestHandler, Response } from 'express';
import { PermissionDeniedError } from '@pi/common';
import { keyAllowsOrigin } from '../auth/allowed-origins';

export const WIDGET_ALLOW_METHODS = 'GET, POST, OPTIONS';
export const CORE_ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
export const WIDGET_ALLOW_HEADERS = 'Content-Type, X-API-Key, Idempotency-Key, X-Request-Id';
export const CORE_ALLOW_HEADERS = `${WIDGET_ALLOW_HEADERS}, Authorization`;
export const EXPOSE_HEADERS = 'Retry-After, X-Request-Id, X-API-Deprecated, X-API-Sunset, Idempotent-Replayed';
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

type OriginDecision = (origin: string, req: Request) => boolean | Error;

/** `https://Admin.example.com/` → `https://admin.example.com`; throws on anything that is not an http(s) origin. */
export function normalizeOrigin(value: string): string {
  const url = new URL(value.trim());
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`not an http(s) origin: ${value}`);
  if (url.origin !== value.trim().replace(/\/$/, '').toLowerCase()) throw new Error(`not a bare origin: ${value}`);
  return url.origin;
}

/** The comma-separated `DASHBOARD_ORIGINS` setting as a list of normalized origins (empty: same-origin only). */
export function parseDashboardOrigins(setting: string): string[] {
  return setting
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(normalizeOrigin);
}

/** A preflight is an OPTIONS that names the method to come; a plain OPTIONS is answered with `Allow` (methods.ts). */
function isPreflight(req: Request): boolean {
  return req.method === 'OPTIONS' && req.get('origin') !== undefined && req.get('access-control-request-method') !== undefined;
}

/**
 * The `cors` package for one request, with `decide` as its origin callback: `true` echoes the origin, `false`
 * sends no CORS header, an Error goes to the error middleware. The package takes every OPTIONS for a preflight;
 * a plain OPTIONS is not one, so it only gets the origin and continues to the 405/`Allow` handling.
 */
function runCors(
  req: Request,
  res: Response,
  next: (err?: unknown) => void,
  decide: OriginDecision,
  preflight: { methods: string; allowedHeaders: string },
): void {
  const options: CorsOptions = isPreflight(req)
    ? { ...preflight, maxAge: PREFLIGHT_MAX_AGE_SECONDS, optionsSuccessStatus: 204, preflightContinue: false }
    : { exposedHeaders: EXPOSE_HEADERS, methods: '', allowedHeaders: [], preflightContinue: true };
  options.origin = (origin, callback) => {
    const decision = origin === undefined ? false : decide(origin, req);
    if (decision instanceof Error) callback(decision);
    else callback(null, decision);
  };
  corsPackage(options)(req, res, next);
}

const widgetPreflight = { methods: WIDGET_ALLOW_METHODS, allowedHeaders: WIDGET_ALLOW_HEADERS };
const corePreflight = { methods: CORE_ALLOW_METHODS, allowedHeaders: CORE_ALLOW_HEADERS };

/**
 * The CORS policy of the path, before authentication and rate limits (a preflight carries no credentials). The
 * actual requests of widget paths that take an API key are left to `widgetKeyCors`.
 */
export function cors(options: { dashboardOrigins: string[] }): RequestHandler {
  const dashboard = new Set(options.dashboardOrigins);
  const dashboardDecision: OriginDecision = (origin, req) => {
    let normalized: string | undefined;
    try {
      normalized = normalizeOrigin(origin);
    } catch {
      normalized = undefined; // "null" and other opaque origins
    }
    if (normalized !== undefined && dashboard.has(normalized)) return true;
    return isPreflight(req) ? new PermissionDeniedError('Origin not allowed.', 'origin_not_allowed') : false;
  };
  return (req, res, next) => {
    const route = req.publicPath?.route;
    if (route?.cors === 'widget') {
      res.vary('Origin');
      if (req.get('origin') === undefined) return next();
      if (isPreflight(req) || route.auth === 'none') return runCors(req, res, next, () => true, widgetPreflight);
      return next(); // decided by the key, once it is accepted (widgetKeyCors)
    }
    if (route?.cors !== 'core') return next();
    if (dashboard.size > 0) res.vary('Origin');
    if (req.get('origin') === undefined) return next();
    runCors(req, res, next, dashboardDecision, corePreflight);
  };
}

/**
 * The actual request of a widget path that takes an API key, after the key was accepted: the origin callback
 * asks the key (its `allowed_domains`, or the service's own origin), which authentication left in
 * `res.locals.apiKeyAllowedDomains`. A request refused before this point gets no CORS header.
 */
export function widgetKeyCors(ownOrigin: string): RequestHandler {
  const keyDecision: OriginDecision = (origin, req) => {
    const allowed = (req.res?.locals as { apiKeyAllowedDomains?: string[] } | undefined)?.apiKeyAllowedDomains;
    return allowed !== undefined && keyAllowsOrigin(origin, allowed, ownOrigin);
  };
  return (req, res, next) => {
    if (req.publicPath?.route.cors !== 'widget' || req.get('origin') === undefined || isPreflight(req)) return next();
    runCors(req, res, next, keyDecision, widgetPreflight);
  };
}

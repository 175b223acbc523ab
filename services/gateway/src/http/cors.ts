/**
 * CORS at the gateway (docs/api/rate-limits-cors-headers.md "CORS and methods"). Two policies:
 * - widget paths (`/api/v1/widget/…`): a preflight is answered for any origin without credentials (a browser
 *   sends none, so the key's `allowed_domains` can't be known yet); the actual request gets
 *   `Access-Control-Allow-Origin` only when it was let through by the API key check, which already refuses a
 *   foreign Origin with 403 `origin_not_allowed` (and on the public `exchange_token/`, for any origin);
 * - core paths (every other `/api/…`): only origins listed in `DASHBOARD_ORIGINS`; a preflight from any other
 *   origin is refused with 403 `origin_not_allowed`, an actual request from one gets no CORS headers.
 * No `Access-Control-Allow-Credentials`: callers use bearer tokens and API keys, never cookies.
 * Which policy a path has comes from the public path table (`req.publicPath`, http/public-paths.ts), like
 * every other policy: a path the table does not take gets no CORS headers (it is answered 404).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { PermissionDeniedError } from '@pi/common';

export const WIDGET_ALLOW_METHODS = 'GET, POST, OPTIONS';
export const CORE_ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
export const WIDGET_ALLOW_HEADERS = 'Content-Type, X-API-Key, Idempotency-Key, X-Request-Id';
export const CORE_ALLOW_HEADERS = `${WIDGET_ALLOW_HEADERS}, Authorization`;
export const EXPOSE_HEADERS = 'Retry-After, X-Request-Id, X-API-Deprecated, X-API-Sunset, Idempotent-Replayed';
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

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

function appendVary(res: ServerResponse, field: string): void {
  const current = res.getHeader('vary');
  const list = (Array.isArray(current) ? current.join(',') : String(current ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.includes('*') || list.some((v) => v.toLowerCase() === field.toLowerCase())) return;
  res.setHeader('Vary', [...list, field].join(', '));
}

function allowOrigin(res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
}

/** Runs `decide` just before the status line and headers go out (after authentication, proxying or errors). */
function beforeHeaders(res: Response, decide: () => void): void {
  const writeHead = res.writeHead;
  let done = false;
  res.writeHead = function (this: ServerResponse<IncomingMessage>, ...args: unknown[]) {
    if (!done) {
      done = true;
      decide();
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as typeof res.writeHead;
}

function isPreflight(req: Request): boolean {
  return req.method === 'OPTIONS' && req.get('origin') !== undefined && req.get('access-control-request-method') !== undefined;
}

function answerPreflight(res: Response, origin: string, methods: string, headers: string): void {
  allowOrigin(res, origin);
  res.setHeader('Access-Control-Allow-Methods', methods);
  res.setHeader('Access-Control-Allow-Headers', headers);
  res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
  res.status(204).end();
}

export function cors(options: { dashboardOrigins: string[] }): RequestHandler {
  const dashboard = new Set(options.dashboardOrigins);
  return (req, res, next) => {
    const route = req.publicPath?.route;
    if (route?.cors === 'widget') {
      appendVary(res, 'Origin');
      const origin = req.get('origin');
      if (origin === undefined) return next();
      if (isPreflight(req)) return answerPreflight(res, origin, WIDGET_ALLOW_METHODS, WIDGET_ALLOW_HEADERS);
      const publicRoute = route.auth === 'none';
      beforeHeaders(res, () => {
        appendVary(res, 'Origin'); // again: a proxied answer may have replaced Vary with the service's own
        // An API key request reaches here with an identity only if its Origin passed `allowed_domains`.
        if (publicRoute || req.identity?.principal.kind === 'api_key') allowOrigin(res, origin);
      });
      return next();
    }
    if (route?.cors !== 'core') return next();
    if (dashboard.size > 0) appendVary(res, 'Origin');
    const origin = req.get('origin');
    if (origin === undefined) return next();
    let normalized: string | undefined;
    try {
      normalized = normalizeOrigin(origin);
    } catch {
      normalized = undefined; // "null" and other opaque origins
    }
    const allowed = normalized !== undefined && dashboard.has(normalized);
    if (isPreflight(req)) {
      if (!allowed) return next(new PermissionDeniedError('Origin not allowed.', 'origin_not_allowed'));
      return answerPreflight(res, origin, CORE_ALLOW_METHODS, CORE_ALLOW_HEADERS);
    }
    if (allowed) allowOrigin(res, origin);
    next();
  };
}

/**
 * 405 for every documented path, the gateway's own and the ones proxied to the services alike: a path the
 * OpenAPI document knows, asked with a method it doesn't have, answers `method_not_allowed` in the error shape
 * with an `Allow` header, before authentication; a plain `OPTIONS` (not a CORS preflight, which cors.ts
 * answers first) gets 204 with `Allow`. The methods come from the document's operations, through the one
 * public path table (http/public-paths.ts: `req.publicPath`), so they cannot drift from the routes:
 * test/e2e/openapi/document.test.ts holds the document to every service's Express routes.
 *
 * A concrete path can match several templates: `/api/v1/widget/move/` is both `/api/v1/widget/move/` (POST)
 * and `/api/v1/widget/{id}/` (GET). Express routes by path alone, trying every route in turn, so the
 * inventory service sends `GET /api/v1/widget/move/` to the `{id}` route (which answers 400 naming `id`). The
 * methods of a path are therefore the union over every template that matches it, the way Express computes
 * its own `Allow`: 405 only where no route of the owning service would take the request, so nothing a
 * service answers today is cut off here. Only templates of the owner the table sends the path to count: `/api/v1/widget/lock_qr/` goes to the QR service, where inventory's `/api/v1/widget/{id}/` (GET)
 * does not exist, so `GET /api/v1/widget/lock_qr/` is a 405 with `Allow: POST, OPTIONS`.
 *
 * Where: the gateway's own paths, core (bearer) paths and public paths are answered before authentication
 * (`methodNotAllowed`). Widget paths that take an API key are not: docs/api/authentication.md gives
 * every method, OPTIONS included, a permission that a key lacking it is refused with 403, and a missing or
 * invalid key 401, so there the key is checked first and the 405 comes after it (`methodNotAllowedAfterApiKey`,
 * run by the dispatcher between API key authentication and the proxy).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError, isTemplateParameter } from '@pi/common';
import type { ResolvedPath } from './public-paths';

/** The order methods are listed in `Allow`. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * `/api/v1/users/{id}/` → `^/api/v1/users/[^/]+/?$`: a template as a pattern on paths already spelled as the
 * table spells them (case-sensitive; the final slash optional, as the table treats it). For the tests' checks.
 */
export function templatePattern(template: string): RegExp {
  const body = template
    .replace(/\/$/, '')
    .split('/')
    .map((segment) => (isTemplateParameter(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/**
 * The methods a resolved path accepts: the union over every template of its owner that takes it, with HEAD
 * wherever GET is (Express answers it) and OPTIONS everywhere; undefined for a mount (static files), which
 * has no documented methods and is left to its router.
 */
function allowedMethods(resolved: ResolvedPath): Set<string> | undefined {
  const allowed = resolved.documentedMethods();
  if (!allowed.size) return undefined;
  if (allowed.has('GET')) allowed.add('HEAD');
  allowed.add('OPTIONS');
  return allowed;
}

/** Answers 405 (or 204 to a plain OPTIONS) for a documented path asked with a method it lacks; else next(). */
function answer(req: Request, res: Response, next: NextFunction): void {
  const allowed = req.publicPath && allowedMethods(req.publicPath);
  if (!allowed || (allowed.has(req.method) && req.method !== 'OPTIONS')) return next();
  const allow = METHOD_ORDER.filter((m) => allowed.has(m));
  res.setHeader('Allow', allow.join(', '));
  if (req.method === 'OPTIONS') return void res.status(204).end();
  next(new AppError(405, 'method_not_allowed', `Method ${req.method} not allowed.`, { allowed_methods: allow }));
}

/** Before authentication: every documented path except the widget paths that take an API key. */
export function methodNotAllowed(): RequestHandler {
  return (req, res, next) => {
    if (req.publicPath?.route.auth === 'api_key') return next();
    answer(req, res, next);
  };
}

/** After API key authentication (and its permission check), for the widget paths that take an API key. */
export function methodNotAllowedAfterApiKey(): RequestHandler {
  return answer;
}

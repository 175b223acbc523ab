/**
 * 405 for every documented path, the gateway's own and the ones proxied to the services alike: a path the
 * OpenAPI document knows, asked with a method it doesn't have, answers `method_not_allowed` in the error shape
 * with an `Allow` header, before authentication; a plain `OPTIONS` (not a CORS preflight, which cors.ts
 * answers first) gets 204 with `Allow`. The table is built from the document's operations (`allOperations()`),
 * so it cannot drift from the routes: test/e2e/openapi/document.test.ts holds the document to every service's
 * Express routes.
 *
 * A concrete path can match several templates: `/api/v1/widget/move/` is both `/api/v1/widget/move/` (POST)
 * and `/api/v1/widget/{id}/` (GET). Express routes by path alone, trying every route in turn, so the
 * inventory service sends `GET /api/v1/widget/move/` to the `{id}` route (which answers 400 naming `id`). The
 * methods of a path are therefore the union over every template that matches it, the way Express computes
 * its own `Allow`: 405 only where no route of the owning service would take the request, so nothing a
 * service answers today is cut off here. Only templates of the service the route table sends the path to
 * count: `/api/v1/widget/lock_qr/` goes to the QR service, where inventory's `/api/v1/widget/{id}/` (GET)
 * does not exist, so `GET /api/v1/widget/lock_qr/` is a 405 with `Allow: POST, OPTIONS`.
 *
 * Where: the gateway's own paths, core (bearer) paths and public paths are answered before authentication
 * (`methodNotAllowed`). Widget paths that take an API key are not: SPEC.md (Authentication, API key 3–4) gives
 * every method, OPTIONS included, a permission that a key lacking it is refused with 403, and a missing or
 * invalid key 401, so there the key is checked first and the 405 comes after it (`methodNotAllowedAfterApiKey`,
 * run by the dispatcher between API key authentication and the proxy).
 */
import type { RequestHandler } from 'express';
import { AppError, type ApiOperation } from '@pi/common';
import { routeFor } from '../proxy/route-table';

/** Who answers a path: the service the route table proxies it to, or the gateway itself. */
type Owner = string;
const ownerOf = (path: string): Owner => routeFor(path)?.service ?? 'gateway';

export interface DocumentedPath {
  template: string;
  pattern: RegExp;
  owner: Owner;
  methods: Set<string>;
}

/** The order methods are listed in `Allow`. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * `/api/v1/users/{id}/` → `^/api/v1/users/[^/]+/?$`, case-insensitive and with the trailing slash optional, as
 * Express (and path-to-regexp) match routes by default.
 */
export function templatePattern(template: string): RegExp {
  const body = template
    .replace(/\/$/, '')
    .split('/')
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`, 'i');
}

/** One row per documented path template, with its methods and the service that answers it. */
export function documentedPaths(operations: ApiOperation[]): DocumentedPath[] {
  const byTemplate = new Map<string, DocumentedPath>();
  for (const op of operations) {
    let row = byTemplate.get(op.path);
    if (!row) {
      row = { template: op.path, pattern: templatePattern(op.path), owner: ownerOf(op.path), methods: new Set() };
      byTemplate.set(op.path, row);
    }
    row.methods.add(op.method.toUpperCase());
  }
  return [...byTemplate.values()];
}

/**
 * The methods a concrete path accepts: the union over every template of its owning service that matches it,
 * or undefined for a path the document does not know (left to the routes, which 404 it).
 */
export function allowedMethods(paths: DocumentedPath[], path: string): string[] | undefined {
  const owner = ownerOf(path);
  const matching = paths.filter((p) => p.owner === owner && p.pattern.test(path));
  if (!matching.length) return undefined;
  const methods = new Set(matching.flatMap((p) => [...p.methods]));
  return METHOD_ORDER.filter((m) => methods.has(m) && m !== 'HEAD' && m !== 'OPTIONS');
}

/** The `Allow` value: HEAD wherever GET is (Express answers it), and OPTIONS everywhere. */
export function allowHeader(methods: string[]): string {
  const all = new Set(methods);
  if (all.has('GET')) all.add('HEAD');
  all.add('OPTIONS');
  return METHOD_ORDER.filter((m) => all.has(m)).join(', ');
}

/** Answers 405 (or 204 to a plain OPTIONS) for a documented path asked with a method it lacks; else next(). */
function answer(paths: DocumentedPath[]): RequestHandler {
  return (req, res, next) => {
    const methods = allowedMethods(paths, req.path);
    if (!methods) return next();
    const allow = allowHeader(methods);
    if (allow.split(', ').includes(req.method) && req.method !== 'OPTIONS') return next();
    res.setHeader('Allow', allow);
    if (req.method === 'OPTIONS') return void res.status(204).end();
    next(new AppError(405, 'method_not_allowed', `Method ${req.method} not allowed.`, { allowed_methods: allow.split(', ') }));
  };
}

const takesApiKey = (path: string) => routeFor(path)?.auth === 'api_key';

/** Before authentication: every documented path except the widget paths that take an API key. */
export function methodNotAllowed(paths: DocumentedPath[]): RequestHandler {
  const check = answer(paths);
  return (req, res, next) => (takesApiKey(req.path) ? next() : check(req, res, next));
}

/** After API key authentication (and its permission check): the widget paths that take an API key. */
export function methodNotAllowedAfterApiKey(paths: DocumentedPath[]): RequestHandler {
  const check = answer(paths);
  return (req, res, next) => (takesApiKey(req.path) ? check(req, res, next) : next());
}

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
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError, type ApiOperation } from '@pi/common';
import { routeFor } from '../proxy/route-table';

/** Who answers a path: the service the route table proxies it to, or the gateway itself. */
type Owner = string;

interface DocumentedPath {
  pattern: RegExp;
  methods: Set<string>;
}

/** The documented path templates of each owner, built once at start: a request only tries its owner's. */
export type MethodTable = Map<Owner, DocumentedPath[]>;

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

/** One row per documented path template with its methods, grouped by the service that answers it. */
export function methodTable(operations: ApiOperation[]): MethodTable {
  const byTemplate = new Map<string, DocumentedPath & { owner: Owner }>();
  for (const op of operations) {
    let row = byTemplate.get(op.path);
    if (!row) {
      row = { pattern: templatePattern(op.path), owner: routeFor(op.path)?.service ?? 'gateway', methods: new Set() };
      byTemplate.set(op.path, row);
    }
    row.methods.add(op.method.toUpperCase());
  }
  const table: MethodTable = new Map();
  for (const row of byTemplate.values()) table.set(row.owner, [...(table.get(row.owner) ?? []), row]);
  return table;
}

/**
 * The methods a concrete path accepts: the union over every template of its owner that matches it, with HEAD
 * wherever GET is (Express answers it) and OPTIONS everywhere; undefined for a path the document does not know
 * (left to the routes, which 404 it).
 */
function allowedMethods(table: MethodTable, owner: Owner, path: string): Set<string> | undefined {
  const matching = (table.get(owner) ?? []).filter((p) => p.pattern.test(path));
  if (!matching.length) return undefined;
  const allowed = new Set(matching.flatMap((p) => [...p.methods]));
  if (allowed.has('GET')) allowed.add('HEAD');
  allowed.add('OPTIONS');
  return allowed;
}

/** Answers 405 (or 204 to a plain OPTIONS) for a documented path asked with a method it lacks; else next(). */
function answer(table: MethodTable, owner: Owner, req: Request, res: Response, next: NextFunction): void {
  const allowed = allowedMethods(table, owner, req.path);
  if (!allowed || (allowed.has(req.method) && req.method !== 'OPTIONS')) return next();
  const allow = METHOD_ORDER.filter((m) => allowed.has(m));
  res.setHeader('Allow', allow.join(', '));
  if (req.method === 'OPTIONS') return void res.status(204).end();
  next(new AppError(405, 'method_not_allowed', `Method ${req.method} not allowed.`, { allowed_methods: allow }));
}

/** Before authentication: every documented path except the widget paths that take an API key. */
export function methodNotAllowed(table: MethodTable): RequestHandler {
  return (req, res, next) => {
    const route = routeFor(req.path);
    if (route?.auth === 'api_key') return next();
    answer(table, route?.service ?? 'gateway', req, res, next);
  };
}

/**
 * After API key authentication (and its permission check), for the widget paths of `service` that take an API
 * key: the dispatcher knows the route already, so this looks nothing up again.
 */
export function methodNotAllowedAfterApiKey(table: MethodTable, service: Owner): RequestHandler {
  return (req, res, next) => answer(table, service, req, res, next);
}

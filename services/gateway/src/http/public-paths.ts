/**
 * The gateway's one table of public paths (docs/api/paths-and-hostile-input.md "Paths"), and the first thing every request meets. The
 * table is built once at start from the operations every part of the system documents (docs/apis.ts: the
 * gateway's own, the pages', each service's) plus the static mounts of the pages and the documentation UIs.
 * Each request target is resolved against it once, by libs/common's spelling rules (http/paths.ts), and then:
 *
 * - a path the table does not take (unknown, or spelled in a refused way: another case, `//`, `/./`, `/../`,
 *   a backslash, `%2F`, `;jsessionid=`…) answers 404 `not_found` before any route or policy sees it;
 * - a path it takes is rewritten to the table's spelling (unreserved escapes decoded, the final slash as
 *   documented), and `req.publicPath` tells every later step which documented route it is. Routing, the
 *   proxy table, authentication, permissions, 405s, every rate-limit scope, CORS and deprecation headers all
 *   read that one answer, and the services behind receive the same spelling; so a spelling either reaches a
 *   route with all of its policies, or nothing;
 * - an HTML page asked without its final slash (`/api/docs`) is redirected to it, so its relative links work.
 */
import type { RequestHandler } from 'express';
import { ApiOperation, PathTable, ServiceApi, pathNotFound, splitTarget } from '@pi/common';

export type ServiceName = 'inventory' | 'qr' | 'monitor';
/** Who answers a path: a service the gateway proxies to, the gateway itself, or its pages. */
export type Owner = ServiceName | 'gateway' | 'pages';
/** How a path's callers authenticate: a user's bearer token, a company API key, or not at all. */
export type AuthKind = 'none' | 'user' | 'api_key';
/** Which CORS policy a path has (http/cors.ts). */
export type CorsPolicy = 'widget' | 'core' | 'none';

export const SERVICE_NAMES: readonly ServiceName[] = ['inventory', 'qr', 'monitor'];

/** One documented path template (or mount) and what every policy needs to know about it. */
export interface PublicRoute {
  template: string;
  owner: Owner;
  auth: AuthKind;
  cors: CorsPolicy;
  /** Its operations by upper-case method; empty for a mount. */
  operations: Map<string, ApiOperation>;
  /** An HTML page: asked without its final slash, it is redirected to it. */
  page: boolean;
}

/** A static mount: any clean path below `prefix` goes to `owner` (no operations, no credentials). */
export interface PublicMount {
  prefix: string;
  owner: Owner;
}

const AUTH_OF: Record<ApiOperation['security'], AuthKind> = { bearer: 'user', api_key: 'api_key', none: 'none' };

function corsPolicyOf(template: string): CorsPolicy {
  if (template.startsWith('/api/v1/widget/')) return 'widget';
  return template.startsWith('/api/') ? 'core' : 'none';
}

function ownerOf(api: ServiceApi): Owner {
  const owner = api.service as Owner;
  if (owner !== 'gateway' && owner !== 'pages' && !SERVICE_NAMES.includes(owner)) throw new Error(`unknown owner of public paths: ${api.service}`);
  return owner;
}

/** The routes of every documented template, one per template; a template's operations share one owner and one security. */
export function publicRoutes(apis: ServiceApi[]): PublicRoute[] {
  const byTemplate = new Map<string, PublicRoute>();
  for (const api of apis) {
    const owner = ownerOf(api);
    for (const op of api.operations) {
      const auth = AUTH_OF[op.security];
      let route = byTemplate.get(op.path);
      if (!route) {
        route = { template: op.path, owner, auth, cors: corsPolicyOf(op.path), operations: new Map(), page: false };
        byTemplate.set(op.path, route);
      }
      if (route.owner !== owner || route.auth !== auth) {
        throw new Error(`${op.path}: every operation of a path has one owner and one kind of authentication`);
      }
      route.operations.set(op.method.toUpperCase(), op);
      if (op.method === 'get' && op.responses[200]?.contentType === 'text/html') route.page = true;
    }
  }
  return [...byTemplate.values()];
}

/** What a request's path resolved to: its route, and every route of the same owner that takes the same path. */
export class ResolvedPath {
  constructor(
    /** The path as the table spells it (what the routers and the services see). */
    readonly path: string,
    /** The most specific route that takes the path. */
    readonly route: PublicRoute,
    /** Every route of `route.owner` that takes the path, the most specific first (`route` included). */
    readonly sameOwner: PublicRoute[],
  ) {}

  get owner(): Owner {
    return this.route.owner;
  }

  get service(): ServiceName | undefined {
    return SERVICE_NAMES.includes(this.route.owner as ServiceName) ? (this.route.owner as ServiceName) : undefined;
  }

  /**
   * The operation a method reaches: the first route of the owner that has it, as Express tries the owner's
   * routes in turn (`GET /api/v1/widget/move/` reaches `GET /api/v1/widget/{id}/`). HEAD reaches GET.
   */
  operationFor(method: string): ApiOperation | undefined {
    const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    for (const route of this.sameOwner) {
      const op = route.operations.get(wanted);
      if (op) return op;
    }
    return undefined;
  }

  /** The documented methods of the path (their union over the owner's routes that take it); empty for a mount. */
  documentedMethods(): Set<string> {
    return new Set(this.sameOwner.flatMap((r) => [...r.operations.keys()]));
  }
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `resolvePublicPath` for every request that reaches a route. */
      publicPath?: ResolvedPath;
    }
  }
}

/** The table of the whole public surface. */
export class PublicPaths {
  private readonly table: PathTable<PublicRoute>;
  readonly routes: PublicRoute[];

  constructor(apis: ServiceApi[], mounts: PublicMount[]) {
    this.routes = publicRoutes(apis);
    const mountRoutes: PublicRoute[] = mounts.map((m) => ({
      template: m.prefix,
      owner: m.owner,
      auth: 'none',
      cors: corsPolicyOf(m.prefix),
      operations: new Map(),
      page: false,
    }));
    this.table = new PathTable([
      ...this.routes.map((route) => ({ template: route.template, value: route })),
      ...mountRoutes.map((route) => ({ template: route.template, value: route, prefix: true })),
    ]);
  }

  /** The route a raw pathname reaches (and whether its final slash was adjusted), or why it reaches none. */
  resolve(rawPathname: string): { resolved: ResolvedPath; slashAdjusted: boolean } | { reason: string } {
    const verdict = this.table.resolve(rawPathname);
    if (!verdict.ok) return { reason: verdict.reason };
    const [best, ...others] = verdict.match.matches.map((m) => m.value);
    const sameOwner = [best, ...others.filter((r) => r.owner === best.owner)];
    return { resolved: new ResolvedPath(verdict.match.path, best, sameOwner), slashAdjusted: verdict.match.slashAdjusted };
  }
}

/**
 * The door: resolves the request's path, rewrites `req.url` to the table's spelling and sets `req.publicPath`;
 * a path that reaches nothing is only marked here (so that security headers and the access log still apply)
 * and answered 404 by `refuseUnroutedPaths`.
 */
export function resolvePublicPath(paths: PublicPaths): RequestHandler {
  return (req, res, next) => {
    const { pathname, query } = splitTarget(req.url);
    const result = paths.resolve(pathname);
    if ('reason' in result) {
      res.locals.pathRefusal = result.reason;
      return next();
    }
    const { resolved, slashAdjusted } = result;
    if (slashAdjusted && resolved.route.page && (req.method === 'GET' || req.method === 'HEAD')) {
      res.locals.pageRedirect = `${resolved.path.slice(resolved.path.lastIndexOf('/', resolved.path.length - 2) + 1)}${query}`;
    }
    req.url = `${resolved.path}${query}`;
    req.publicPath = resolved;
    next();
  };
}

/** 404 for a path that reaches nothing; 301 for a page asked without its final slash (a relative Location). */
export function refuseUnroutedPaths(): RequestHandler {
  return (req, res, next) => {
    if (res.locals.pageRedirect) return void res.redirect(301, res.locals.pageRedirect as string);
    if (req.publicPath) return next();
    next(pathNotFound(res.locals.pathRefusal as string | undefined));
  };
}

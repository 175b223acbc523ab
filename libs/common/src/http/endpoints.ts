/**
 * Each HTTP operation is declared once, as an `Endpoint`: what its callers see (the `ApiOperation` the OpenAPI
 * document and the gateway's path table are built from) and what answers it (`handle`). The Express routes
 * are derived from that one list (`endpointRouter`), so a route cannot exist without its documentation, nor
 * validate with another schema than the one documented (docs/decisions/0006-endpoints-declared-once.md).
 */
import { Router } from 'express';
import type { Request, RequestHandler, Response } from 'express';
import { PermissionDeniedError } from '../errors';
import type { Identity } from '../identity';
import type { ApiOperation } from '../openapi/operation';
import type { IdOwner } from '../db/ownership';
import { ownedFilters } from './owned-filters';
import { ROUTER_OPTIONS, withTemplateParameters } from './paths';
import { validate } from './validate';

/**
 * What a handler receives: the request's parts as validated by the operation's schemas, and its caller. The
 * type parameters say what the schemas produce (`Call<LocationFilters>`); `params` is `{ id }` unless told.
 */
export interface Call<Query = unknown, Body = unknown, Params = { id: string }> {
  query: Query;
  body: Body;
  params: Params;
  /** The caller, as the gateway signed it. Absent only for operations with `security: 'none'`. */
  identity: Identity;
  /** For what the parts above do not carry: headers, the request's logger, a page's links. */
  req: Request;
  /** For answers that are not JSON: streams, redirects, HTML. A handler that writes it returns nothing. */
  res: Response;
}

/** An answer whose status is not the operation's first success status (or which has no body: `reply(202)`). */
export class Reply {
  constructor(
    readonly status: number,
    readonly body?: unknown,
  ) {}
}

export const reply = (status: number, body?: unknown): Reply => new Reply(status, body);

/**
 * The call as the list sees it. A method's parameter is compared both ways, so each handler may name the
 * types its own schemas produce (`Call<LocationFilters>`); validation is what makes them true.
 */
type AnyCall = Call<never, never, never>;

export interface Endpoint<Ctx> extends ApiOperation {
  /** Steps before validation, e.g. a reader of a CSV body. */
  before?: RequestHandler[];
  /**
   * Steps after validation, before the owned filters: checks that need the validated request and must refuse
   * before any id is looked up (a QR scan key's reach).
   */
  afterValidation?: RequestHandler[];
  /** Query filters naming records of the caller's company (http/owned-filters.ts), checked after validation. */
  ownedFilters?: Readonly<Record<string, IdOwner>>;
  /**
   * Answers the call. What it returns is sent as JSON with the operation's first success status (204: no
   * body); a `Reply` picks another status; a handler that wrote `res` itself returns nothing.
   */
  handle(ctx: Ctx, call: AnyCall): Promise<unknown>;
}

/** Lets a list of endpoints be type-checked where it is written. */
export const endpoints = <Ctx>(...list: Endpoint<Ctx>[]): Endpoint<Ctx>[] => list;

/** `/api/v1/locations/{id}/` → `/api/v1/locations/:id/`. */
export const expressPath = (template: string): string => withTemplateParameters(template, (name) => `:${name}`);

/** The lowest 2xx/3xx status the operation documents: what a plain return value is sent with. */
function firstSuccessStatus(op: ApiOperation): number {
  const statuses = Object.keys(op.responses)
    .map(Number)
    .filter((s) => s < 400)
    .sort((a, b) => a - b);
  if (!statuses.length) throw new Error(`${op.operationId}: documents no success answer`);
  return statuses[0];
}

const requireAdmin: RequestHandler = (req, _res, next) => {
  if (req.identity?.principal.kind !== 'user' || req.identity.role !== 'admin') return next(new PermissionDeniedError('Only company admins can do this.'));
  next();
};

function send(res: Response, status: number, result: unknown): void {
  if (res.headersSent || res.writableEnded) return;
  const answer = result instanceof Reply ? result : new Reply(status, result);
  res.status(answer.status);
  if (answer.body === undefined || answer.status === 204) res.end();
  else res.json(answer.body);
}

/** The Express steps of one endpoint: its `before` steps, the admin check, validation, its `afterValidation` steps, owned filters, the handler. */
function stepsOf<Ctx>(ctx: Ctx, endpoint: Endpoint<Ctx>): RequestHandler[] {
  const { params, query, body } = endpoint.request ?? {};
  const steps = [...(endpoint.before ?? [])];
  if (endpoint.adminOnly) steps.push(requireAdmin);
  if (params || query || body) steps.push(validate({ params, query, body }));
  if (endpoint.afterValidation) steps.push(...endpoint.afterValidation);
  if (endpoint.ownedFilters) steps.push(ownedFilters(endpoint.ownedFilters));
  const status = firstSuccessStatus(endpoint);
  steps.push(async (req, res) => {
    const call: Call<unknown, unknown, unknown> = { query: req.query, body: req.body, params: req.params, identity: req.identity!, req, res };
    send(res, status, await endpoint.handle(ctx, call as AnyCall));
  });
  return steps;
}

/** The Express router of a list of endpoints, in the list's order (a fixed path before a `{id}` one that would take it). */
export function endpointRouter<Ctx>(ctx: Ctx, list: Endpoint<Ctx>[]): Router {
  // Paths as documented, exactly: another spelling never reaches a route (docs/api/paths-and-hostile-input.md).
  const router = Router(ROUTER_OPTIONS);
  for (const endpoint of list) router[endpoint.method](expressPath(endpoint.path), ...stepsOf(ctx, endpoint));
  return router;
}

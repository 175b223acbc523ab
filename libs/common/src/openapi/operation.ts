/**
 * What one HTTP operation looks like to its callers: the joi schemas that validate its request (the very
 * objects its route passes to `validate()`) and the joi schemas of its answers. Each service lists its
 * operations next to its routes; the gateway turns every list into the OpenAPI document
 * (services/gateway/src/docs), answers 405 from it, and the tests check routes and answers against it.
 */
import Joi from 'joi';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** How a caller authenticates: a user's bearer token, a company API key, or not at all. */
export type Security = 'bearer' | 'api_key' | 'none';

export interface ResponseSpec {
  description: string;
  /** The JSON body; absent for an empty answer (204, 302). */
  schema?: Joi.Schema;
  /** Defaults to application/json when `schema` is set. A non-JSON body (PDF, SVG, CSV) names its type here. */
  contentType?: string;
  /** The same answer in other types the client may ask for (e.g. `application/yaml`): type → description. */
  otherContentTypes?: Record<string, string>;
  /** Response headers worth documenting (Location, Retry-After, …): name → description. */
  headers?: Record<string, string>;
}

export interface RequestSpec {
  params?: Joi.ObjectSchema;
  query?: Joi.ObjectSchema;
  /** The JSON body. */
  body?: Joi.Schema;
  /** Other accepted body types (e.g. `text/csv`), with a description of what they hold. */
  otherBodyTypes?: Record<string, string>;
}

export interface ApiOperation {
  method: HttpMethod;
  /** The public path as an OpenAPI template: `/api/v1/product-models/{id}/`. */
  path: string;
  operationId: string;
  /** One tag per resource; the document groups tags by service. */
  tag: string;
  summary: string;
  description?: string;
  security: Security;
  /** Only company admins may call it (403 `permission_denied` otherwise). */
  adminOnly?: boolean;
  request?: RequestSpec;
  /**
   * Successful answers by status. Error answers are added by the document builder from `errors`; an error
   * status listed here (e.g. an HTML 404 page) replaces the builder's.
   */
  responses: Record<number, ResponseSpec>;
  /** Error statuses this operation answers beyond the ones every operation of its kind can. */
  errors?: number[];
  /**
   * Takes an optional `Idempotency-Key` header (a booking, an import, or a creation a retry would make twice:
   * docs/decisions/0004-idempotent-bookings.md).
   * The document declares the header and the 409 `idempotency_key_reused`; the handler reads the key.
   */
  idempotencyKey?: boolean;
  /**
   * Rate-limit scopes the operation counts against besides its caller's (`login`, `qr_api`, `product_import`…:
   * docs/api/rate-limits-cors-headers.md). The gateway refuses to start on a scope it does not know.
   */
  rateLimits?: readonly string[];
}

/** Lets a list of operations be type-checked where it is written. */
export const operations = (...list: ApiOperation[]): ApiOperation[] => list;

/** Pieces of every service's answer schemas: an id, and an ISO 8601 UTC timestamp (as JSON carries a Date). */
export const uuidSchema = Joi.string().uuid();
export const timestampSchema = Joi.date().iso();

/** The 200 of a page (an HTML document) in an operation's `responses`. */
export const htmlResponse = (description: string): Record<number, ResponseSpec> => ({ 200: { description, contentType: 'text/html' } });

/** The error shape (docs/api/conventions.md); every error answer of every service has it. */
export const errorBodySchema = Joi.object({
  error: Joi.string().required().description('Human-readable message.'),
  code: Joi.string().required().description('Machine-readable error code (see docs/api/conventions.md).'),
  details: Joi.object().unknown(true).required().description('Field-specific information: a field path → what is wrong.'),
  request_id: Joi.string().required().description('Identifier for support; also in the X-Request-ID header.'),
  retry_after: Joi.number().integer().min(0).description('429 only: whole seconds to wait (also `Retry-After`).'),
  allowed_transitions: Joi.array().items(Joi.string()).description('409 on a state change: the valid next states.'),
  validation_errors: Joi.array()
    .items(Joi.object({ path: Joi.string().required(), message: Joi.string().required() }))
    .description('400 `invalid_engine_config`: each problem of the engine configuration, by path.'),
}).label('Error');

/**
 * `{count, next, previous, results}` of core list endpoints (libs/common http/pagination.ts). `label` names the
 * shared component (`ProductPage`); give each page of a different item its own.
 */
export function pageSchema(item: Joi.Schema, label: string): Joi.ObjectSchema {
  return Joi.object({
    count: Joi.number().integer().min(0).required(),
    next: Joi.string().uri().allow(null).required(),
    previous: Joi.string().uri().allow(null).required(),
    results: Joi.array().items(item).required(),
  }).id(label);
}

/** One service's part of the document: its tags (one per resource) and its operations. */
export interface ServiceApi {
  service: string;
  tags: { name: string; description: string }[];
  operations: ApiOperation[];
}

/** The distinct path templates of a service's operations: what its app answers (http/service-app.ts). */
export function pathsOf(api: ServiceApi): string[] {
  return [...new Set(api.operations.map((op) => op.path))];
}

/**
 * The OpenAPI 3.1 document, built once from every service's operations (ServiceApi): the joi schemas that
 * validate requests become parameters and request bodies, the joi schemas of answers become responses, and
 * every operation gets the error answers its kind can give. The deprecation table marks what it names.
 */
import Joi from 'joi';
import parseJoi from 'joi-to-json';
import { ApiOperation, ResponseSpec, ServiceApi, errorBodySchema, templateParameters } from '@pi/common';
import type { Deprecation } from '../proxy/deprecations';

/** A JSON Schema as joi-to-json writes it: the keywords this module reads, and any others. */
interface JsonSchema {
  type?: unknown;
  description?: string;
  required?: string[];
  properties?: Record<string, JsonSchema>;
  allOf?: unknown[];
  [keyword: string]: unknown;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an open JSON document: its readers (schema-router, the tests' checks) walk it freely
export type OpenApiDocument = Record<string, any>;

/** What marking a deprecation touches in an operation object. */
interface MarkedOperation {
  description?: string;
  deprecated?: boolean;
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }>;
  parameters: Array<{ name: string; in: string; deprecated?: boolean; [field: string]: unknown }>;
}

/** The API's version: the URL carries its major (`/api/v1/`); minor versions add, never break (docs/api/openapi-and-versioning.md). */
const API_VERSION = '1.0.0';

export interface DocumentOptions {
  apis: ServiceApi[];
  deprecations: Deprecation[];
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Validation error or bad request: `details` names every bad field.',
  401: 'Missing or invalid credentials.',
  403: 'The credentials lack the permission, or the resource belongs to another company (`access_denied`).',
  404: 'No such resource.',
  405: 'Method not allowed on this path (`Allow` lists the allowed ones).',
  409: 'Conflict: insufficient stock, a duplicate, an invalid state transition (`allowed_transitions`), or an `Idempotency-Key` used for another request.',
  410: 'The redirect token has expired.',
  413: 'The request body is over the size limit.',
  415: 'Unsupported request body type.',
  429: 'Rate limit exceeded: wait `retry_after` seconds (also the `Retry-After` header).',
  503:
    '`service_unavailable`: the request was not carried out (a service or the database could not be reached, or the work could not finish ' +
    'in time): nothing changed, retry as it is. `outcome_unknown`: the connection was lost while a change was being committed: it may or may ' +
    'not have happened; retry with the same `Idempotency-Key` (bookings, imports, new locations and work orders), which answers the first outcome or books once.',
  504:
    "`upstream_timeout`: the service got the request but did not answer within the gateway's timeout. For a change the outcome is unknown: " +
    'retry with the same `Idempotency-Key` (bookings, imports, new locations and work orders), which answers the first outcome or books once.',
};

/** The header of the operations that take an `Idempotency-Key` (ApiOperation.idempotencyKey). */
const IDEMPOTENCY_KEY_HEADER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe (scoped to the company). A retry with the same key and the same request answers the first answer again, byte for ' +
    'byte, with `Idempotent-Replayed: true`, and books or writes nothing; sent while the first is still under way, it waits for it. The ' +
    'same key with another request is 409 `idempotency_key_reused`. A refused request (4xx) and a dry run are not remembered, so the key ' +
    'can be used again once the request can succeed. Send one after a 503 `outcome_unknown` or a 504 too.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};

/** The parts of the document the gateway serves itself; every other operation is proxied to a service. */
const GATEWAY_OWN = new Set(['gateway', 'pages']);

export function buildOpenApiDocument({ apis, deprecations }: DocumentOptions): OpenApiDocument {
  const shared: JsonSchema = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const api of apis) {
    for (const op of api.operations) {
      const item = (paths[op.path] ??= {});
      if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is documented twice`);
      item[op.method] = operationObject(op, shared, !GATEWAY_OWN.has(api.service));
    }
  }
  for (const d of deprecations) markDeprecated(paths, d);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Inventory service API',
      version: API_VERSION,
      description:
        'Products, locations, a stock ledger, serialized items, batches, work orders, QR codes and monitoring, for many companies. ' +
        'Core endpoints take a user bearer token (`POST /api/token/`); widget endpoints take a company API key. ' +
        'Errors share one shape (`Error`). Deprecated operations answer `X-API-Deprecated: true` and, with a removal date, `X-API-Sunset`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: apis.flatMap((a) => a.tags),
    'x-tagGroups': apis.map((a) => ({ name: a.service, tags: a.tags.map((t) => t.name) })),
    paths,
    components: {
      schemas: { ...shared, Error: toJsonSchema(errorBodySchema, shared) },
      responses: Object.fromEntries(
        Object.entries(ERROR_DESCRIPTIONS).map(([status, description]) => [`Error${status}`, errorResponse(description, Number(status))]),
      ),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A user access token from `POST /api/token/` (15 minutes).' },
        apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'A company API key as the `api_key` query parameter (looked up first).' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A company API key in the `X-API-Key` header (looked up second).' },
        apiKeyBody: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description:
            'A company API key as `api_key` in the JSON body of a POST (looked up last). OpenAPI cannot name a body location, so this ' +
            'scheme repeats the header for tools; the bodies of widget POSTs list `api_key` as a property.',
        },
      },
    },
  };
}

function operationObject(op: ApiOperation, shared: JsonSchema, proxied: boolean) {
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description || op.adminOnly ? { description: [op.description, op.adminOnly ? 'Company admins only.' : ''].filter(Boolean).join('\n\n') } : {}),
    security: securityOf(op),
    parameters: [...pathParametersOf(op, shared), ...parametersOf(op.request?.query, 'query', shared), ...(op.idempotencyKey ? [IDEMPOTENCY_KEY_HEADER] : [])],
    ...requestBodyOf(op, shared),
    responses: sortedByStatus({ ...errorResponses(op, proxied), ...successResponses(op.responses, shared) }),
  };
}

function securityOf(op: ApiOperation) {
  if (op.security === 'bearer') return [{ bearerAuth: [] }];
  if (op.security === 'api_key') return [{ apiKeyQuery: [] }, { apiKeyHeader: [] }, { apiKeyBody: [] }];
  return [];
}

/**
 * Every parameter of the path template, as OpenAPI requires: those the operation validates with their schema,
 * any other (`/go/{code}/`, which takes any text so that a bad code gets the HTML page) as a plain string.
 */
function pathParametersOf(op: ApiOperation, shared: JsonSchema) {
  const declared = parametersOf(op.request?.params, 'path', shared);
  const undeclared = templateParameters(op.path)
    .filter((name) => !declared.some((p) => p.name === name))
    .map((name) => ({ name, in: 'path' as const, required: true, schema: { type: 'string' } }));
  return [...declared, ...undeclared];
}

function parametersOf(schema: Joi.ObjectSchema | undefined, where: 'path' | 'query', shared: JsonSchema) {
  if (!schema) return [];
  const json = toJsonSchema(schema, shared);
  const required = new Set<string>(json.required ?? []);
  return Object.entries<JsonSchema>(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: where, required: where === 'path' || required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

function requestBodyOf(op: ApiOperation, shared: JsonSchema) {
  const body = op.request?.body;
  const others = op.request?.otherBodyTypes ?? {};
  if (!body && !Object.keys(others).length) return {};
  const content: Record<string, unknown> = {};
  if (body) content['application/json'] = { schema: withBodyApiKey(toJsonSchema(body, shared), op) };
  for (const [type, description] of Object.entries(others)) content[type] = { schema: { type: 'string', description } };
  // validate() reads a missing body as {}: the body is required exactly when {} is refused.
  return { requestBody: { required: body ? body.validate({}).error !== undefined : true, content } };
}

/** The third API key location (lookup order: query, header, body) is a property of the JSON body. */
function withBodyApiKey(schema: JsonSchema, op: ApiOperation): JsonSchema {
  if (op.security !== 'api_key' || op.method === 'get' || schema.type !== 'object') return schema;
  const apiKey = { type: 'string', writeOnly: true, description: 'The company API key, when not sent as `api_key` in the query or as `X-API-Key`.' };
  return { ...schema, properties: { ...schema.properties, api_key: apiKey } };
}

function successResponses(responses: Record<number, ResponseSpec>, shared: JsonSchema) {
  return Object.fromEntries(
    Object.entries(responses).map(([status, spec]) => {
      const contentType = spec.contentType ?? 'application/json';
      const schema = spec.schema ? toJsonSchema(spec.schema, shared) : contentType === 'application/json' ? undefined : { type: 'string' };
      const headers = spec.headers
        ? Object.fromEntries(Object.entries(spec.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]))
        : undefined;
      const content: Record<string, unknown> = schema ? { [contentType]: { schema } } : {};
      for (const [type, description] of Object.entries(spec.otherContentTypes ?? {})) content[type] = { schema: { type: 'string', description } };
      return [status, { description: spec.description, ...(headers ? { headers } : {}), ...(Object.keys(content).length ? { content } : {}) }];
    }),
  );
}

/**
 * Every error status an operation can answer: its own list plus what its request and credentials imply, and
 * 504 when the gateway proxies it (a service that does not answer in time).
 */
export function errorStatusesOf(op: ApiOperation, proxied = false): number[] {
  const statuses = new Set<number>(op.errors ?? []);
  if (op.idempotencyKey) statuses.add(409);
  if (op.request?.params || op.request?.query || op.request?.body) statuses.add(400);
  if (op.security !== 'none') [401, 403].forEach((s) => statuses.add(s));
  if (op.adminOnly) statuses.add(403);
  if (op.request?.params) statuses.add(404);
  if (op.request?.body || op.request?.otherBodyTypes) statuses.add(413);
  [429, 503].forEach((s) => statuses.add(s));
  if (proxied) statuses.add(504);
  return [...statuses].sort((a, b) => a - b);
}

/** Statuses in numeric order, `default` last, whichever list they came from. */
function sortedByStatus(responses: Record<string, unknown>): Record<string, unknown> {
  const order = (status: string) => (status === 'default' ? 1000 : Number(status));
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => order(a) - order(b)));
}

function errorResponses(op: ApiOperation, proxied: boolean) {
  const listed = Object.fromEntries(errorStatusesOf(op, proxied).map((s) => [s, { $ref: `#/components/responses/Error${s}` }]));
  return {
    ...listed,
    default: { description: 'Any other error, in the same shape.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
  };
}

function errorResponse(description: string, status: number) {
  const headers =
    status === 429
      ? { 'Retry-After': { description: 'Whole seconds to wait.', schema: { type: 'integer' } } }
      : status === 405
        ? { Allow: { description: 'The methods this path accepts.', schema: { type: 'string' } } }
        : undefined;
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

function markDeprecated(paths: Record<string, Record<string, unknown>>, d: Deprecation) {
  const op = paths[d.path]?.[d.method] as MarkedOperation | undefined;
  if (!op) throw new Error(`The deprecation table names ${d.method.toUpperCase()} ${d.path}, which is not documented`);
  const note = `Deprecated: ${d.what}.` + (d.sunset ? ` Removal on ${d.sunset} (\`X-API-Sunset\`).` : '');
  op.description = [op.description, note].filter(Boolean).join('\n\n');
  const headers = {
    'X-API-Deprecated': { description: '`true` when the deprecated form was used.', schema: { type: 'string', enum: ['true'] } },
    ...(d.sunset ? { 'X-API-Sunset': { description: 'The removal date (ISO 8601).', schema: { type: 'string', format: 'date' } } } : {}),
  };
  for (const response of Object.values(op.responses)) {
    if (!response.$ref) response.headers = { ...response.headers, ...headers };
  }
  if (!d.parameter) {
    op.deprecated = true;
    return;
  }
  const parameter = op.parameters.find((p) => p.name === d.parameter && p.in === 'query');
  if (parameter) parameter.deprecated = true;
  else op.parameters.push({ name: d.parameter, in: 'query', required: false, deprecated: true, description: note, schema: { type: 'string' } });
}

/**
 * `oxor` (at most one of the peers) as "not two of them together", which says exactly that; joi-to-json's
 * own rendering is a `oneOf` that the conversion below would loosen.
 */
const parserOptions = {
  logicalOpParser: {
    oxor: (schema: JsonSchema, dependency: { peers: string[] }) => {
      const pairs = dependency.peers.flatMap((a, i) => dependency.peers.slice(i + 1).map((b) => ({ not: { required: [a, b] } })));
      schema.allOf = [...(schema.allOf ?? []), ...pairs];
    },
  },
};

/**
 * joi → JSON Schema 2020-12 (OpenAPI 3.1). Schemas given an `.id()` are shared under components/schemas.
 * joi-to-json renders a field's `Joi.when(…)` as a `oneOf` of its branches, which wrongly refuses a value
 * both branches accept (a quantity valid for `set` and for `add`); `anyOf` says what joi means.
 */
export function toJsonSchema(schema: Joi.Schema, shared: JsonSchema): JsonSchema {
  const json = oneOfAsAnyOf(parseJoi(schema, 'open-api-3.1', {}, parserOptions));
  const { schemas, ...rest } = json as JsonSchema & { schemas?: Record<string, JsonSchema> };
  for (const [id, definition] of Object.entries(schemas ?? {})) {
    if (shared[id] && JSON.stringify(shared[id]) !== JSON.stringify(definition)) throw new Error(`Two different schemas share the id ${id}`);
    shared[id] = definition;
  }
  return rest;
}

/** Also drops the every-type `type` list joi-to-json puts beside such branches (renderers warn about it). */
function oneOfAsAnyOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(oneOfAsAnyOf);
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([k, v]) => [k === 'oneOf' ? 'anyOf' : k, oneOfAsAnyOf(v)] as const);
  const branches = entries.some(([k]) => k === 'anyOf');
  return Object.fromEntries(entries.filter(([k, v]) => !(branches && k === 'type' && Array.isArray(v) && v.length >= 6)));
}

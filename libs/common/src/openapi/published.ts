/**
 * A service's operations as data (docs/decisions/0006-endpoints-declared-once.md): the build writes each service's `ServiceApi`
 * to `dist/api.json` beside its code (tools/src/publish-apis.ts), and the gateway reads those files instead
 * of importing the services. Joi schemas travel as their `describe()` output and are rebuilt with
 * `Joi.build`; rules written as functions (`.custom()`) cannot travel and are left out, which the document
 * does not show anyway. The request schemas a service validates with stay in the service.
 */
import fs from 'node:fs';
import Joi from 'joi';
import type { ApiOperation, ServiceApi } from './operation';

/** Where a service package publishes its operations, relative to its directory. */
export const PUBLISHED_API_FILE = 'dist/api.json';

type Description = unknown;

/** A description without rules that are functions, which JSON cannot carry. */
function withoutFunctions(description: Description): Description {
  if (Array.isArray(description)) return description.map(withoutFunctions);
  if (!description || typeof description !== 'object') return description;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(description)) {
    if (typeof value === 'function') continue;
    if (key === 'rules' && Array.isArray(value)) {
      const rules = value.filter((rule: { name?: string }) => rule.name !== 'custom');
      if (rules.length) out.rules = rules.map(withoutFunctions);
    } else out[key] = withoutFunctions(value);
  }
  return out;
}

/**
 * Only an operation's own fields: an endpoint's handler and Express steps are the service's. Typed as every
 * field of ApiOperation, so a field added there and not here fails to compile instead of going unpublished.
 */
function publishedOperation(op: ApiOperation): { [K in keyof Required<ApiOperation>]: ApiOperation[K] } {
  const { method, path, operationId, tag, summary, description, security, adminOnly, request, responses, errors, idempotencyKey, rateLimits } = op;
  return { method, path, operationId, tag, summary, description, security, adminOnly, request, responses, errors, idempotencyKey, rateLimits };
}

/** The JSON text of a service's operations. */
export function publishApi(api: ServiceApi): string {
  const data = { service: api.service, tags: api.tags, operations: api.operations.map(publishedOperation) };
  return JSON.stringify(data, (_key, value: unknown) => (Joi.isSchema(value) ? { $joi: withoutFunctions(value.describe()) } : value));
}

const isPublishedSchema = (value: unknown): value is { $joi: Joi.Description } => !!value && typeof value === 'object' && '$joi' in value;

/** `holder[key]`, a published schema, becomes a getter that rebuilds it with `Joi.build` when first read. */
function rebuildOnFirstRead(holder: object, key: string, description: Joi.Description): void {
  Object.defineProperty(holder, key, {
    enumerable: true,
    configurable: true,
    get() {
      const schema = Joi.build(description) as Joi.Schema;
      Object.defineProperty(holder, key, { value: schema, enumerable: true, configurable: true, writable: true });
      return schema;
    },
  });
}

/**
 * A service's operations read back from `publishApi`'s text. Each schema is rebuilt when it is first read:
 * the gateway's path table needs none of them, only the OpenAPI document does, and rebuilding all of them
 * cost every gateway start about 0.2 s of CPU.
 */
export function readPublishedApi(text: string): ServiceApi {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, child] of Object.entries(value)) if (isPublishedSchema(child)) rebuildOnFirstRead(value, key, child.$joi);
    }
    return value;
  }) as ServiceApi;
}

/** The operations a service package at `packageDir` published; a clear error when it has not been built. */
export function loadPublishedApi(packageDir: string): ServiceApi {
  const file = `${packageDir}/${PUBLISHED_API_FILE}`;
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: \`npm run build\` publishes every service's operations`);
  return readPublishedApi(fs.readFileSync(file, 'utf8'));
}

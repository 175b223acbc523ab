/**
 * Every answer the tests receive through `api()` is checked against the OpenAPI document: the operation's
 * documented status (or `default`), its content type, and its JSON body against the documented schema. An
 * answer the document does not describe fails the test that received it, so the document cannot drift from
 * what the services send.
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { OpenApiDocument, SERVICE_APIS, buildOpenApiDocument, deprecationTable, templatePattern } from '@pi/gateway';

interface DocumentedOperation {
  method: string;
  template: string;
  pattern: RegExp;
  literalSegments: number;
  responses: Record<string, any>;
}

let loaded: { document: OpenApiDocument; operations: DocumentedOperation[]; ajv: Ajv2020 } | undefined;
const validators = new Map<string, ValidateFunction>();

/** The document as the gateway serves it (the sunset date does not change any schema). */
export function openApiDocument(): OpenApiDocument {
  return load().document;
}

function load() {
  if (loaded) return loaded;
  const document = buildOpenApiDocument({ apis: SERVICE_APIS, deprecations: deprecationTable({ QR_API_KEY_URL_SUNSET: '2027-06-30' }) });
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: document.components });
  const operations: DocumentedOperation[] = [];
  for (const [template, item] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern: templatePattern(template),
        literalSegments: literalSegments(template),
        responses: op.responses,
      });
    }
  }
  // A literal segment beats a parameter: `/api/v1/widget/move/` before `/api/v1/widget/{id}/`.
  operations.sort((a, b) => b.literalSegments - a.literalSegments);
  loaded = { document, operations, ajv };
  return loaded;
}

const literalSegments = (template: string) => template.split('/').filter((s) => s && !s.startsWith('{')).length;

export interface ReceivedAnswer {
  method: string;
  path: string;
  status: number;
  contentType: string;
  text: string;
  body: unknown;
}

/** Throws when the answer is not what the document says this operation answers. */
export function checkAgainstDocument(answer: ReceivedAnswer): void {
  const method = answer.method.toUpperCase();
  if (method === 'HEAD' || method === 'OPTIONS') return;
  const { operations } = load();
  const pathname = new URL(answer.path, 'http://x').pathname;
  const matches = operations.filter((op) => op.pattern.test(pathname));
  const op = matches.find((m) => m.method === method);
  const where = `${method} ${answer.path} → ${answer.status}`;
  if (!op) {
    // An undocumented path or method: only the error shape is promised (404, 405).
    if (answer.status < 400) throw new Error(`${where}: the OpenAPI document has no such operation`);
    if (isJson(answer.contentType)) validateBody('#/components/schemas/Error', { $ref: 'openapi#/components/schemas/Error' }, answer.body, where);
    return;
  }
  const response = resolve(op.responses[String(answer.status)] ?? op.responses.default);
  if (!response) throw new Error(`${where}: status not documented for ${method} ${op.template}`);
  const content: Record<string, any> | undefined = response.content;
  if (!content) {
    if (answer.text) throw new Error(`${where}: documented without a body, but one came (${answer.contentType})`);
    return;
  }
  const mediaType = answer.contentType.split(';')[0].trim();
  const documented = content[mediaType];
  if (!documented) throw new Error(`${where}: content type ${mediaType || '(none)'} is not one of ${Object.keys(content).join(', ')}`);
  if (isJson(mediaType)) validateBody(`${method} ${op.template} ${answer.status}`, documented.schema, answer.body, where);
}

function resolve(response: any): any {
  if (!response?.$ref) return response;
  const name = response.$ref.replace('#/components/responses/', '');
  return load().document.components.responses[name];
}

function validateBody(cacheKey: string, schema: unknown, body: unknown, where: string) {
  const { ajv } = load();
  let validator = validators.get(cacheKey);
  if (!validator) {
    validator = ajv.compile(rebase(schema));
    validators.set(cacheKey, validator);
  }
  if (validator(body)) return;
  const problems = (validator.errors ?? [])
    .slice(0, 6)
    .map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`);
  throw new Error(`${where}: the answer does not match the documented schema:\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(body).slice(0, 600)}`);
}

/** Local `#/components/…` references point into the document registered as `openapi`. */
function rebase(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi${v}` : rebase(v)]),
  );
}

const isJson = (contentType: string) => /[/+]json\b/.test(contentType);

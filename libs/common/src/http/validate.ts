/**
 * Request validation with joi. The validator replaces `req.body` / `req.query` / `req.params` with the
 * cleaned values and raises one ValidationError naming every bad field. Field errors are collected in
 * prototype-free maps (field-map.ts) and a failed joi validation always refuses the request, so no key name a
 * client picks (`constructor`, `__proto__`, `toString` …) can switch validation off. Text the database
 * cannot store as sent (NUL, unpaired surrogates; hostile-text.ts) is refused in every part of a request,
 * including parts a route reads without a schema of its own, and so is a query parameter whose
 * percent-encoding is not UTF-8 (query-encoding.ts), which the query parser would have altered.
 */
import type { RequestHandler } from 'express';
import Joi from 'joi';
import { ValidationError } from '../errors';
import { FieldMap, MAX_NAMED, addField, fieldMap, mergeFields } from './field-map';
import { hostileTextFields } from './hostile-text';
import { MANY_VALUES, breadthOf } from './json-breadth';
import { splitTarget } from './paths';
import { badlyEncodedQueryFields } from './query-encoding';

export interface RequestSchemas {
  body?: Joi.Schema;
  query?: Joi.Schema;
  params?: Joi.Schema;
}

const OPTIONS: Joi.ValidationOptions = {
  abortEarly: false,
  convert: true,
  errors: { wrap: { label: false } },
};

/** For a value of more than MANY_VALUES values: up to its first problem (json-breadth.ts). */
const FIRST_PROBLEM: Joi.ValidationOptions = { ...OPTIONS, abortEarly: true };

/**
 * Each schema with OPTIONS baked in, made once: joi caches the merged options of a schema's own preferences,
 * whereas options passed to every `validate` call are cloned and merged on each one (three per request).
 */
const withOptions = new WeakMap<Joi.Schema, Joi.Schema>();
function prepared(schema: Joi.Schema): Joi.Schema {
  let ready = withOptions.get(schema);
  if (!ready) withOptions.set(schema, (ready = schema.describe().preferences ? schema : schema.prefs(OPTIONS)));
  return ready;
}

/**
 * Turns a joi error into `{ "field.path": "message" }`, first message per field, for at most MAX_NAMED fields
 * (field-map.ts). An error about the value as a whole (no path) is named `rootName`.
 */
export function fieldsOf(error: Joi.ValidationError, rootName = 'body'): FieldMap {
  const fields = fieldMap();
  for (const d of error.details.slice(0, MAX_NAMED)) {
    const path = d.path.length ? d.path.join('.') : rootName;
    addField(fields, path, d.path.length ? d.message : d.message.replace(/^value\b/, rootName));
  }
  // joi never fails without details, but a refusal must name something whatever happens above.
  if (!Object.keys(fields).length) addField(fields, rootName, error.message);
  return fields;
}

/**
 * joi's result. A schema with preferences of its own keeps them over OPTIONS, as when OPTIONS are passed per
 * call; baked-in preferences would also win over FIRST_PROBLEM, so that one goes with the schema as given.
 */
function validated(schema: Joi.Schema, value: unknown, firstProblemOnly: boolean): Joi.ValidationResult<unknown> {
  if (firstProblemOnly) return schema.validate(value, FIRST_PROBLEM);
  const ready = prepared(schema);
  return ready === schema ? schema.validate(value, OPTIONS) : ready.validate(value);
}

/**
 * `value` checked by `schema` (after the text checks of hostile-text.ts): the clean value, or the field errors
 * of both. `name` labels an error of the value as a whole.
 */
function check(schema: Joi.Schema, value: unknown, name: string): { clean: unknown; fields?: FieldMap } {
  // Bounded before joi, whose work grows with the problems it finds (json-breadth.ts).
  const breadth = breadthOf(value, name);
  if (breadth.tooWide) return { clean: value, fields: breadth.tooWide };
  const fields = hostileTextFields(value, name);
  const result = validated(schema, value, breadth.values > MANY_VALUES);
  const { error } = result;
  const clean: unknown = result.value;
  if (error) mergeFields(fields, fieldsOf(error, name));
  return Object.keys(fields).length ? { clean, fields } : { clean };
}

/** Validates a value outside a request (CLI arguments, files); `name` labels a plain value's error. */
export function validateValue<T>(schema: Joi.Schema<T>, value: unknown, name = 'body'): T {
  const { clean, fields } = check(schema, value, name);
  if (fields) throw new ValidationError(fields);
  return clean as T;
}

/** A validator keeps its schemas, so that a test can prove the OpenAPI document shows the ones in force. */
export type ValidatingHandler = RequestHandler & { requestSchemas: RequestSchemas };

export function validate(schemas: RequestSchemas): ValidatingHandler {
  const handler: RequestHandler = (req, _res, next) => {
    const fields = fieldMap();
    const cleaned: Partial<Record<keyof RequestSchemas, unknown>> = {};
    // What the query parser made of a badly encoded parameter is not what the client sent: only its name is.
    const badlyEncoded = badlyEncodedQueryFields(splitTarget(req.originalUrl).query);
    mergeFields(fields, badlyEncoded);
    const queryBadlyEncoded = Object.keys(badlyEncoded).length > 0;
    for (const part of ['params', 'query', 'body'] as const) {
      const schema = schemas[part];
      if (part === 'query' && queryBadlyEncoded) continue;
      if (!schema) {
        // A part the route validates elsewhere (an import's rows) or not at all is still no place for such text.
        if (part !== 'body' || typeof req.body === 'object') mergeFields(fields, hostileTextFields(req[part], part));
        continue;
      }
      const input: unknown = part === 'body' && req.body === undefined ? {} : req[part];
      const result = check(schema, input, part);
      if (result.fields) mergeFields(fields, result.fields);
      else cleaned[part] = result.clean;
    }
    if (Object.keys(fields).length) return next(new ValidationError(fields));
    if (cleaned.body !== undefined) req.body = cleaned.body;
    // Express 5 exposes query and params through getters; shadow them on this request with the clean values.
    if (cleaned.query !== undefined) Object.defineProperty(req, 'query', { value: cleaned.query, enumerable: true });
    if (cleaned.params !== undefined) Object.defineProperty(req, 'params', { value: cleaned.params, enumerable: true });
    next();
  };
  return Object.assign(handler, { requestSchemas: schemas });
}

/** Common schema pieces. */
export const schemas = {
  uuid: Joi.string().guid({ version: ['uuidv1', 'uuidv4', 'uuidv5', 'uuidv7'] }),
  idParams: Joi.object({ id: Joi.string().guid().required() }),
  /**
   * An ISO 8601 instant in the years 0001–9999. joi alone takes any year JavaScript can (±275760), which
   * PostgreSQL refuses or clients cannot print; such a filter would end in a database error.
   */
  timestamp: Joi.date()
    .iso()
    .min('0001-01-01T00:00:00.000Z')
    .max('9999-12-31T23:59:59.999Z')
    .messages({ 'date.min': '{#label} must be in the years 0001 to 9999', 'date.max': '{#label} must be in the years 0001 to 9999' }),
  pagination: {
    page: Joi.number().integer().min(1).default(1),
    page_size: Joi.number().integer().min(1).max(500).default(50),
  },
};

/** The validated `:id` path parameter (Express 5 types params loosely). */
export function idParam(req: { params: unknown }): string {
  return String((req.params as Record<string, unknown>).id);
}

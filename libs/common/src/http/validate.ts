/**
 * Request validation with joi. The validator replaces `req.body` / `req.query` / `req.params` with the
 * cleaned values and raises one ValidationError naming every bad field.
 */
import type { RequestHandler } from 'express';
import Joi from 'joi';
import { ValidationError } from '../errors';

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

/**
 * Turns a joi error into `{ "field.path": "message" }`, first message per field. An error about the value
 * as a whole (no path) is named `rootName`.
 */
export function fieldsOf(error: Joi.ValidationError, rootName = 'body'): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const d of error.details) {
    const path = d.path.length ? d.path.join('.') : rootName;
    fields[path] ??= d.path.length ? d.message : d.message.replace(/^value\b/, rootName);
  }
  return fields;
}

/** Validates a value outside a request (CLI arguments, files); `name` labels a plain value's error. */
export function validateValue<T>(schema: Joi.Schema<T>, value: unknown, name = 'body'): T {
  const { value: clean, error } = schema.validate(value, OPTIONS);
  if (error) throw new ValidationError(fieldsOf(error, name));
  return clean;
}

/** A validator keeps its schemas, so that a test can prove the OpenAPI document shows the ones in force. */
export type ValidatingHandler = RequestHandler & { requestSchemas: RequestSchemas };

export function validate(schemas: RequestSchemas): ValidatingHandler {
  const handler: RequestHandler = (req, _res, next) => {
    const fields: Record<string, string> = {};
    const cleaned: Partial<Record<keyof RequestSchemas, unknown>> = {};
    for (const part of ['params', 'query', 'body'] as const) {
      const schema = schemas[part];
      if (!schema) continue;
      const input = part === 'body' && req.body === undefined ? {} : req[part];
      const { value, error } = schema.validate(input, OPTIONS);
      if (error) Object.assign(fields, fieldsOf(error));
      else cleaned[part] = value;
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
  pagination: {
    page: Joi.number().integer().min(1).default(1),
    page_size: Joi.number().integer().min(1).max(500).default(50),
  },
};

/** The validated `:id` path parameter (Express 5 types params loosely). */
export function idParam(req: { params: unknown }): string {
  return String((req.params as Record<string, unknown>).id);
}

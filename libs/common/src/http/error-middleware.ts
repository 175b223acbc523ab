/**
 * The one place errors become HTTP answers. Known errors keep their status and code; body-parser and
 * database constraint errors are translated; anything else is a generic 500 whose details are logged,
 * never sent.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { UniqueConstraintError } from 'sequelize';
import { AppError, ConflictError, DatabaseUnavailableError, NotFoundError, PayloadTooLargeError, ServiceUnavailableError, ValidationError } from '../errors';
import { connectionFailureOf, isPoolExhausted } from '../db/connection-loss';
import { requestIdOf } from '../identity';
import type { Logger } from '../logger';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const bp = err as BodyParserError;
  if (bp?.type === 'entity.parse.failed') return new ValidationError({ body: 'is not valid JSON' }, 'Malformed JSON in request body.');
  if (bp?.type === 'entity.too.large') return new PayloadTooLargeError(bp.limit ? `${bp.limit} bytes` : 'the configured size');
  if (bp?.type === 'encoding.unsupported' || bp?.type === 'charset.unsupported') {
    return new AppError(415, 'unsupported_media_type', bp.message);
  }
  if (err instanceof UniqueConstraintError) {
    const fields = Object.keys(err.fields ?? {}).filter((f) => f !== 'company_id');
    const details = Object.fromEntries(fields.map((f) => [f, 'already exists']));
    return new AppError(409, 'already_exists', 'A record with these values already exists.', details);
  }
  // The resilient database layer answers lost connections itself; these are what escaped it (a transaction
  // begun without a callback): a 503, never a 500. A pool with every connection busy is an overload.
  if (connectionFailureOf(err)) return new DatabaseUnavailableError();
  if (isPoolExhausted(err)) return new ServiceUnavailableError('The service is busy. Try again shortly.');
  return undefined;
}

/**
 * A `.catch` for a write a company-scoped unique constraint may refuse (a SKU, a serial number, a username):
 * the refusal becomes 409 `already_exists` naming `field`, with `message`, where toAppError would only say
 * which columns clashed; any other error passes through unchanged.
 */
export function rethrowAlreadyExists(message: string, field: string, detail = 'already exists'): (err: unknown) => never {
  return (err) => {
    if (err instanceof UniqueConstraintError) throw new ConflictError('already_exists', message, { [field]: detail });
    throw err;
  };
}

export function errorBody(err: AppError, requestId: string) {
  return { error: err.message, code: err.code, details: err.details, ...err.extra, request_id: requestId };
}

export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    const known = toAppError(err);
    if (!known) logger.error({ err, request_id: requestIdOf(req) }, 'unhandled error');
    const answer = known ?? new AppError(500, 'internal_error', 'An unexpected error occurred.');
    res.status(answer.status).json(errorBody(answer, requestIdOf(req)));
  };
}

/** Answers 404 in the error shape for any route nobody claimed. */
export function notFoundMiddleware(): RequestHandler {
  return (_req, _res, next) => next(new NotFoundError('No such endpoint.'));
}

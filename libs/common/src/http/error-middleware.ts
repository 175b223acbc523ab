/**
 * The one place errors become HTTP answers. Known errors keep their status and code; body-parser and
 * database constraint errors are translated; anything else is a generic 500 whose details are logged,
 * never sent.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DatabaseError, UniqueConstraintError } from 'sequelize';
import {
  AppError,
  ConflictError,
  DatabaseRefusalError,
  DatabaseUnavailableError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  ValidationError,
  operatorMessage,
} from '../errors';
import { connectionFailureOf, isDatabaseRefusal, isPoolExhausted } from '../db/connection-loss';
import { vanishedReference } from '../db/vanished-reference';
import { requestIdOf } from '../identity';
import type { Logger } from '../logger';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
  code?: unknown;
  expose?: boolean;
}

/** zlib's and Brotli's decoding errors (`Z_DATA_ERROR`, `Z_BUF_ERROR`, `ERR__ERROR_FORMAT_PADDING_1`…), as body-parser passes them on. */
const isInflateError = (err: BodyParserError) => err.status === 400 && typeof err.code === 'string' && /^(Z_|ERR__)/.test(err.code);
/**
 * CHECK constraints that a valid request can still run into, by name, and the answer each gets. A bound kept
 * by the database holds whatever SQL the booking path runs (docs/api/paths-and-hostile-input.md "Hostile input").
 */
const CHECK_ANSWERS: Record<string, () => AppError> = {
  stock_balances_quantity_max: () =>
    new ConflictError('balance_out_of_range', 'The booking would take a stock balance beyond the largest one kept; nothing was booked.', {
      quantity: 'would take the stock at a location to 100000000000000 or more (the largest balance is 99999999999999.999999)',
    }),
};

/** PostgreSQL's answer to a value out of a column's or type's range (numeric_value_out_of_range). */
const NUMERIC_OUT_OF_RANGE = '22003';

/** A PostgreSQL error as Sequelize wraps it, or as the `pg` driver raises it to code that queries it directly. */
function databaseAnswer(err: unknown): AppError | undefined {
  const pg = (err instanceof DatabaseError ? err.parent : err) as { code?: unknown; constraint?: unknown; detail?: unknown } | null;
  if (!pg || typeof pg !== 'object' || typeof pg.code !== 'string') return undefined;
  const constraint = typeof pg.constraint === 'string' ? pg.constraint : '';
  if (pg.code === '23514' && Object.prototype.hasOwnProperty.call(CHECK_ANSWERS, constraint)) return CHECK_ANSWERS[constraint]();
  if (pg.code === NUMERIC_OUT_OF_RANGE)
    return new AppError(400, 'value_out_of_range', 'A number in the request is beyond what can be stored; nothing was changed.');
  return vanishedReference(pg);
}

/** The type of the error a text body with bytes that are not UTF-8 raises (json-body.ts `refuseBytesNotUtf8`). */
export const BODY_NOT_UTF8 = 'entity.not.utf8';

export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const bp = err as BodyParserError;
  // The router could not percent-decode a path parameter (`%`, `%zz`): the path names nothing it could route.
  if (err instanceof URIError && (err as URIError & { status?: number }).status === 400) {
    return new ValidationError({ path: 'is not valid percent-encoding' }, 'The path is not valid percent-encoding.');
  }
  if (bp?.type === 'entity.parse.failed') return new ValidationError({ body: 'is not valid JSON' }, 'Malformed JSON in request body.');
  if (bp?.type === BODY_NOT_UTF8) return new ValidationError({ body: 'is not UTF-8 text' }, bp.message);
  if (bp?.type === 'entity.too.large') return new PayloadTooLargeError(bp.limit ? `${bp.limit} bytes` : 'the configured size');
  if (bp?.type === 'encoding.unsupported') {
    return new AppError(415, 'unsupported_media_type', bp.message, { 'content-encoding': 'is not one of identity, gzip, deflate, br' });
  }
  if (bp?.type === 'charset.unsupported') return new AppError(415, 'unsupported_media_type', bp.message, { 'content-type': 'has an unsupported charset' });
  // A body that is not what its Content-Encoding says (plain JSON sent as gzip, a truncated stream): the
  // client's mistake, never a 500.
  if (bp && isInflateError(bp)) return new ValidationError({ body: 'does not match its Content-Encoding' }, 'The request body could not be decoded.');
  if (bp?.type === 'request.size.invalid') return new ValidationError({ body: 'does not match its Content-Length' }, 'The request body is incomplete.');
  // Any other client error Express or body-parser raises (http-errors marks them `expose`), e.g. a path
  // parameter that is not valid percent-encoded UTF-8: its own 4xx, never a 500.
  if (bp && bp.expose === true && typeof bp.status === 'number' && bp.status >= 400 && bp.status < 500) {
    return new AppError(bp.status, bp.status === 400 ? 'validation_error' : 'bad_request', bp.message);
  }
  if (err instanceof UniqueConstraintError) {
    const fields = Object.keys(err.fields ?? {}).filter((f) => f !== 'company_id');
    const details = Object.fromEntries(fields.map((f) => [f, 'already exists']));
    return new AppError(409, 'already_exists', 'A record with these values already exists.', details);
  }
  // The resilient database layer answers lost connections itself; these are what escaped it (a transaction
  // begun without a callback): a 503, never a 500. A pool with every connection busy is an overload.
  if (connectionFailureOf(err)) return new DatabaseUnavailableError(err);
  if (isDatabaseRefusal(err)) return new DatabaseRefusalError(err);
  if (isPoolExhausted(err)) return new ServiceUnavailableError('The service is busy. Try again shortly.');
  return databaseAnswer(err);
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
    // The client gets a 503; the operator must learn why (a read-only or full database needs them).
    else if (known instanceof DatabaseRefusalError)
      logger.error({ request_id: requestIdOf(req), cause: operatorMessage(known) }, 'the database refused the request');
    const answer = known ?? new AppError(500, 'internal_error', 'An unexpected error occurred.');
    res.status(answer.status).json(errorBody(answer, requestIdOf(req)));
  };
}

/** Answers 404 in the error shape for any route nobody claimed. */
export function notFoundMiddleware(): RequestHandler {
  return (_req, _res, next) => next(new NotFoundError('No such endpoint.'));
}

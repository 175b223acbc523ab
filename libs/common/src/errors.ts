/**
 * One error vocabulary for every process. Each class carries the HTTP status and the stable snake_case
 * `code` that clients switch on; `errorMiddleware` (http/error-middleware.ts) turns them into the error shape of docs/api/conventions.md:
 * `{error, code, details, request_id}` shape.
 */
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
    /** Extra top-level fields of the answer, where docs/api/ promises them (e.g. `validation_errors`). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400 naming every bad field: `details` maps a field path to what is wrong with it. */
export class ValidationError extends AppError {
  constructor(fields: Record<string, string>, message = 'Invalid request: ' + Object.keys(fields).join(', ')) {
    super(400, 'validation_error', message, fields);
  }
}

export class AuthenticationError extends AppError {
  constructor(message = 'Authentication credentials were not provided or are invalid.') {
    super(401, 'authentication_failed', message);
  }
}

export class PermissionDeniedError extends AppError {
  constructor(message = 'You do not have permission to perform this action.', code = 'permission_denied') {
    super(403, code, message);
  }
}

/** Company isolation violation. The message is deliberately vague and identical everywhere (docs/api/conventions.md, 403). */
export class AccessDeniedError extends AppError {
  constructor() {
    super(403, 'access_denied', 'Access denied.');
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found.') {
    super(404, 'not_found', message);
  }
}

export class ConflictError extends AppError {
  constructor(code: string, message: string, details: ErrorDetails = {}) {
    super(409, code, message, details);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limit: string) {
    super(413, 'payload_too_large', `Request body exceeds the limit of ${limit}.`);
  }
}

/** 503 `service_unavailable`: the request was not carried out (nothing changed); it can be retried as it is. */
export class ServiceUnavailableError extends AppError {
  constructor(message = 'A backing service is unavailable. Try again shortly.') {
    super(503, 'service_unavailable', message);
  }
}

/** The database could not be reached (or kept failing) before anything was written: nothing changed. */
export class DatabaseUnavailableError extends ServiceUnavailableError {
  /** `failure`: the connection error behind it, for operators (logs, command output); never sent to clients. */
  constructor(readonly failure?: unknown) {
    super('The database is unavailable; nothing was changed. Try again shortly.');
  }
}

/**
 * The database is up but refused the work: read-only, or out of disk, memory or a configured limit
 * (db/connection-loss.ts `isDatabaseRefusal`). Nothing changed; the operator must act, so it is logged.
 */
export class DatabaseRefusalError extends DatabaseUnavailableError {}

/** An error's message for an operator: with the connection failure behind it where there is one. */
export function operatorMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const failure = err instanceof DatabaseUnavailableError ? err.failure : undefined;
  if (!(failure instanceof Error)) return err.message;
  // Sequelize keeps PostgreSQL's SQLSTATE on the driver's error it wraps.
  const { code: own, parent } = failure as { code?: unknown; parent?: { code?: unknown } };
  const code = own ?? parent?.code;
  const reason = typeof code === 'string' && !failure.message.includes(code) ? `${failure.message} (${code})` : failure.message;
  return `${err.message} Cause: ${reason}`;
}

/**
 * The request's deadline (docs/api/deadlines-and-retries.md) passed before its work could commit: the work was
 * abandoned and rolled back, so nothing changed.
 */
export class DeadlineExceededError extends ServiceUnavailableError {
  constructor() {
    super('The request could not be completed in time; nothing was changed. Try again shortly.');
  }
}

/**
 * 503 `outcome_unknown`: the connection to the database was lost while a change was being committed, so
 * whether it happened cannot be known. A retry with the same `Idempotency-Key` is safe: it answers the first
 * outcome if there was one, and books once if there was none.
 */
export class OutcomeUnknownError extends AppError {
  constructor(what = 'The connection to the database was lost while this change was being committed') {
    super(503, 'outcome_unknown', `${what}: it may or may not have been made. Retrying with the same Idempotency-Key is safe.`);
  }
}

/**
 * 504 `upstream_timeout` (gateway): the service got the request but did not answer in time. For a change the
 * outcome is unknown; a retry with the same `Idempotency-Key` is safe.
 */
export class UpstreamTimeoutError extends AppError {
  constructor(changesState: boolean) {
    super(
      504,
      'upstream_timeout',
      changesState
        ? 'The service did not answer in time: the outcome of this request is unknown. Retrying with the same Idempotency-Key is safe.'
        : 'The service did not answer in time. Try again shortly.',
    );
  }
}

/**
 * 409 for a state change the resource's state machine refuses. docs/api/qr-codes.md: "the error carries
 * allowed_transitions": at the top level, and in `details` with the current status.
 */
export class InvalidTransitionError extends ConflictError {
  constructor(message: string, status: string, allowedTransitions: readonly string[]) {
    super('invalid_transition', message, { status, allowed_transitions: [...allowedTransitions] });
    this.extra.allowed_transitions = [...allowedTransitions];
  }
}

/**
 * One error vocabulary for every process. Each class carries the HTTP status and the stable snake_case
 * `code` that clients switch on; `errorMiddleware` (http/error-middleware.ts) turns them into SPEC.md's
 * `{error, code, details, request_id}` shape.
 */
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
    /** Extra top-level fields of the answer, where SPEC.md asks for them (e.g. `validation_errors`). */
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

/** Company isolation violation. The message is deliberately vague and identical everywhere (SPEC.md, 403). */
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

export class ServiceUnavailableError extends AppError {
  constructor(message = 'A backing service is unavailable. Try again shortly.') {
    super(503, 'service_unavailable', message);
  }
}

/**
 * 409 for a state change the resource's state machine refuses. SPEC.md: "the error carries
 * allowed_transitions": at the top level, and in `details` with the current status.
 */
export class InvalidTransitionError extends ConflictError {
  constructor(message: string, status: string, allowedTransitions: readonly string[]) {
    super('invalid_transition', message, { status, allowed_transitions: [...allowedTransitions] });
    this.extra.allowed_transitions = [...allowedTransitions];
  }
}

/**
 * `X-Request-Deadline`: the moment (epoch milliseconds) by which the gateway needs a service's answer to have
 * started, less a margin for the answer's way back; past it the gateway has answered 504 and stopped waiting
 * (docs/api/deadlines-and-retries.md). A service runs each request under that deadline (db/deadline.ts), so its
 * transactions give up rather than commit after the gateway told the client the outcome is unknown.
 *
 * Only the gateway sets it (it replaces any a client sent), and a service reads it only after the request's
 * internal token was verified, so no one outside can lend a request more time. A malformed value is ignored
 * (logged): the request then runs without a deadline, as one from an older gateway does. A request whose
 * deadline had passed before the service read it (it waited in a frozen or overloaded process) is refused at
 * once with 503 `service_unavailable`: nothing was done.
 */
import type { RequestHandler } from 'express';
import { Deadline, runWithDeadline } from '../db/deadline';
import { DeadlineExceededError } from '../errors';
import { requestIdOf } from '../identity';
import type { Logger } from '../logger';

export const REQUEST_DEADLINE_HEADER = 'x-request-deadline';

/** No request waits longer than this at a gateway; a deadline further ahead is not believed. */
const LONGEST_BUDGET_MS = 24 * 60 * 60 * 1000;

/** The gateway's margin for the answer's way back: a tenth of its timeout, at most a second. */
export function deadlineMarginMs(timeoutMs: number): number {
  return Math.min(1000, Math.floor(timeoutMs / 10));
}

/** The header's value for a request the gateway sends now and waits for at most `timeoutMs`. */
export function requestDeadlineHeader(timeoutMs: number, now = Date.now()): string {
  return String(now + timeoutMs - deadlineMarginMs(timeoutMs));
}

/** The header's deadline, `undefined` when absent, `'malformed'` when it is not a plausible epoch-ms time. */
export function parseRequestDeadline(value: string | undefined, now = Date.now()): number | undefined | 'malformed' {
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,16}$/.test(value)) return 'malformed';
  const at = Number(value);
  if (at > now + LONGEST_BUDGET_MS || at < now - LONGEST_BUDGET_MS) return 'malformed';
  return at;
}

/** After internal authentication and body parsing (body parsing would lose the request's async context). */
export function requestDeadline(logger: Logger): RequestHandler {
  return (req, _res, next) => {
    const parsed = parseRequestDeadline(req.get(REQUEST_DEADLINE_HEADER));
    if (parsed === 'malformed') logger.warn({ request_id: requestIdOf(req) }, `ignoring a malformed ${REQUEST_DEADLINE_HEADER} header`);
    if (parsed === undefined || parsed === 'malformed') return next();
    const deadline = new Deadline(parsed);
    if (deadline.passed()) return next(new DeadlineExceededError());
    runWithDeadline(deadline, next);
  };
}

/**
 * Which database errors mean that the connection failed rather than the statement, and whether the
 * statement can have reached the server. The resilient layer (resilient-sequelize.ts) decides from this what
 * it may retry: a statement that was never sent can always be retried; one that was sent and lost can be
 * retried only if it reads.
 *
 * - `not_sent`: no connection could be made (refused, timed out, the server starting up or out of slots), or
 *   the client already knew its connection was dead and refused to send.
 * - `lost`: the connection died while the statement was on its way or running (the backend was terminated,
 *   the server shut down, the socket was reset or closed).
 */
import { ConnectionAcquireTimeoutError, ConnectionError, DatabaseError } from 'sequelize';

export type ConnectionFailure = 'not_sent' | 'lost';

/**
 * SQLSTATEs of a session that ended: 57P01 admin_shutdown (pg_terminate_backend), 57P02 crash_shutdown,
 * 57P03 cannot_connect_now, 57P05 idle_session_timeout, 25P03 idle_in_transaction_session_timeout, 08xxx
 * connection exceptions, 53300 too_many_connections (at connect).
 */
const SESSION_ENDED = /^(57P0[1235]|25P03|08\d{3}|53300)$/;
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** node-postgres's own messages for a connection that ended or could not be made. */
const LOST_MESSAGES = /Connection terminated|connection timeout|timeout expired|Query read timeout|socket hang up/i;
const REFUSED_TO_SEND = /is not queryable|Client was closed/i;

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  parent?: unknown;
  original?: unknown;
}

/** The error and the driver errors Sequelize wrapped inside it. */
function layers(err: unknown): ErrorLike[] {
  const seen: ErrorLike[] = [];
  let current = err as ErrorLike | undefined;
  while (current && typeof current === 'object' && !seen.includes(current) && seen.length < 4) {
    seen.push(current);
    current = (current.parent ?? current.original) as ErrorLike | undefined;
  }
  return seen;
}

function looksLikeConnectionLoss(e: ErrorLike): boolean {
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  return SESSION_ENDED.test(code) || NETWORK_CODES.has(code) || LOST_MESSAGES.test(message) || REFUSED_TO_SEND.test(message);
}

/** `undefined` when `err` is not a connection failure (a constraint, a syntax error, a lock timeout, …). */
export function connectionFailureOf(err: unknown): ConnectionFailure | undefined {
  // Waiting for a pooled connection timed out: the pool is busy, not broken; nothing was sent, but waiting
  // again would only double the wait.
  if (err instanceof ConnectionAcquireTimeoutError) return undefined;
  if (err instanceof ConnectionError) return 'not_sent';
  const all = layers(err);
  if (!all.some(looksLikeConnectionLoss)) return undefined;
  if (all.some((e) => typeof e.message === 'string' && REFUSED_TO_SEND.test(e.message))) return 'not_sent';
  // Sequelize wraps every error of a statement it ran in a DatabaseError; anything else came from opening
  // the connection (its setup statements included), before the caller's statement was sent.
  return err instanceof DatabaseError ? 'lost' : 'not_sent';
}

/** The busy pool (every connection in use for `pool.acquire` ms). */
export function isPoolExhausted(err: unknown): boolean {
  return err instanceof ConnectionAcquireTimeoutError;
}

/**
 * SQLSTATEs of a database that is up but refuses to do the work: 25006 read_only_sql_transaction (a standby
 * after a failover, or a managed server that turned itself read-only when its storage filled up), 53100
 * disk_full, 53200 out_of_memory, 53400 configuration_limit_exceeded. The statement failed and its
 * transaction rolled back, so nothing changed, and the same request can succeed once the operator has acted.
 */
const REFUSED_FOR_WANT_OF_RESOURCES = new Set(['25006', '53100', '53200', '53400']);

/** Whether the database refused the work because it is read-only or out of a resource (above). */
export function isDatabaseRefusal(err: unknown): boolean {
  return layers(err).some((e) => typeof e.code === 'string' && REFUSED_FOR_WANT_OF_RESOURCES.has(e.code));
}

/** 57014 query_canceled: statement_timeout fired (or the statement was cancelled). */
export function isStatementCancelled(err: unknown): boolean {
  return layers(err).some((e) => e.code === '57014');
}

/** 55P03 lock_not_available: lock_timeout fired while the statement waited for a lock. */
export function isLockTimeout(err: unknown): boolean {
  return layers(err).some((e) => e.code === '55P03');
}

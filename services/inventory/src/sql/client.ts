/**
 * Plain `pg` on the inventory's hot paths (a booking, the widget's product list): one statement on a
 * connection borrowed from Sequelize's own pool, so the service keeps one pool, one size setting
 * (`DATABASE_POOL_MAX`) and one shutdown, while the statement skips Sequelize's query machinery (its
 * per-query option handling, logging and result shaping), which cost more CPU than the statement itself.
 *
 * Statements are named, so PostgreSQL parses and plans each once per connection. A database error comes
 * back as Sequelize's `DatabaseError` around pg's error (`.parent.code` is the SQLSTATE), exactly as a
 * Sequelize query would throw it, so the service's one error vocabulary (retries on 40P01/40001, the
 * error middleware) applies to both kinds of statement.
 */
import type { QueryResult, QueryResultRow } from 'pg';
import { ResilientSequelize } from '@pi/common';
import { DatabaseError, type Sequelize } from 'sequelize';

/** A named statement and its parameters (pg's `QueryConfig` subset used here). */
export interface Statement {
  name: string;
  text: string;
  values: unknown[];
  /** `array`: rows as arrays in column order, cheaper to build than objects for long results. */
  rowMode?: 'array';
}

interface PooledClient {
  query<R extends QueryResultRow | unknown[]>(config: Statement): Promise<QueryResult<R & QueryResultRow>>;
}

interface ConnectionPool {
  getConnection(options: { type: 'write' }): Promise<unknown>;
  releaseConnection(connection: unknown): void;
}

/** pg's error for a statement the server refused (it carries the SQLSTATE in `code`). */
export interface ServerError extends Error {
  code: string;
  detail?: string;
}

export function isServerError(err: unknown): err is ServerError {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string' && 'severity' in err;
}

/**
 * Runs one statement on a pooled connection under the resilient layer's rules (docs: "Deadlines and
 * retries"): retried while it was not sent (or always when `reads`), `OutcomeUnknownError` for a write
 * lost after sending, `DeadlineExceededError` when a timeout set from the request's deadline cancels it.
 * A server error is thrown as Sequelize's DatabaseError.
 */
export async function runStatement<R extends QueryResultRow | unknown[]>(
  sequelize: Sequelize,
  statement: Statement | (() => Statement),
  { reads = false }: { reads?: boolean } = {},
): Promise<QueryResult<R & QueryResultRow>> {
  // A function is asked again for each attempt (a booking's time left shrinks between them).
  const once = () => runOnce<R>(sequelize, typeof statement === 'function' ? statement() : statement);
  return sequelize instanceof ResilientSequelize ? sequelize.runStatement(once, { reads }) : once();
}

async function runOnce<R extends QueryResultRow | unknown[]>(sequelize: Sequelize, statement: Statement): Promise<QueryResult<R & QueryResultRow>> {
  const pool = sequelize.connectionManager as unknown as ConnectionPool;
  const client = (await pool.getConnection({ type: 'write' })) as PooledClient;
  try {
    return await client.query<R>(statement);
  } catch (err) {
    // Wrapped like Sequelize wraps a statement's errors, so that a connection lost here counts as "sent".
    throw Object.assign(new DatabaseError(err as ServerError & { sql: string; parameters: [] }), { sql: statement.text });
  } finally {
    pool.releaseConnection(client);
  }
}

/** The pg error inside a DatabaseError thrown by `runStatement` (or by a Sequelize query). */
export function serverErrorOf(err: unknown): ServerError | undefined {
  const parent = (err as { parent?: unknown })?.parent;
  return isServerError(parent) ? parent : undefined;
}

/**
 * Sequelize with two things added to every transaction and statement, whoever runs them (docs/api/deadlines-and-retries.md, "Deadlines
 * and retries"):
 *
 * 1. **Lost connections are retried where that is safe.** A managed transaction
 *    (`sequelize.transaction(options?, callback)`) that fails because the connection was lost before COMMIT
 *    was sent is rolled back and its whole callback is run again, on another connection; if COMMIT itself was
 *    sent and the connection died before its answer, the outcome is unknown: `OutcomeUnknownError` (503
 *    `outcome_unknown`), never a retry that could commit twice. A statement outside a transaction that only
 *    reads is retried; one that writes is made a transaction of its own, with the same rules (so a write
 *    sent on a connection PostgreSQL had already dropped is simply made again). What still fails after the
 *    retries answers 503 `service_unavailable`: nothing was changed.
 * 2. **The request's deadline bounds the work** (db/deadline.ts, set by http/request-deadline.ts). A
 *    transaction begins only before the deadline, with `statement_timeout` and
 *    `idle_in_transaction_session_timeout` set to the time left (so PostgreSQL itself abandons a statement
 *    that runs, or a session that stalls, past it), and is committed only if the deadline has not passed
 *    right before COMMIT; otherwise it is rolled back: `DeadlineExceededError` (503 `service_unavailable`).
 *
 * A callback that must not run twice (one that streams its result to the client as it goes) passes
 * `retry: false`; a long read-only transaction that is not bounded by the request (an export, whose answer
 * keeps the gateway's inactivity timer alive) passes `deadline: false`.
 */
import { Transaction, TransactionOptions } from 'sequelize';
import { Sequelize, SequelizeOptions } from 'sequelize-typescript';
import { DatabaseUnavailableError, DeadlineExceededError, OutcomeUnknownError } from '../errors';
import type { Logger } from '../logger';
import { ConnectionFailure, connectionFailureOf, isLockTimeout, isStatementCancelled } from './connection-loss';
import { Deadline, currentDeadline } from './deadline';

export interface ManagedTransactionOptions extends TransactionOptions {
  /** Run the callback again after a connection lost before COMMIT (default true). */
  retry?: boolean;
  /** Bound the transaction by the request's deadline, if it has one (default true). */
  deadline?: boolean;
}

/** Attempts of one transaction or statement, the first included. */
const MAX_ATTEMPTS = 5;
/** Pause before attempt n (n ≥ 2): 25, 50, 100, 200 ms, plus up to as much again at random. */
const pauseBefore = (attempt: number) => {
  const base = 25 * 2 ** (attempt - 2);
  return new Promise((resolve) => setTimeout(resolve, base + Math.random() * base));
};

/** The timeouts a transaction sets for itself, in the statement that begins it (transaction options key). */
const SESSION_LIMITS = Symbol('session limits');
const LIMITS_APPLIED = Symbol('session limits applied');
const BEGIN = /^START TRANSACTION;?$/i;

/** A statement that can only read, so running it twice changes nothing. Errs on the side of "writes". */
const WRITES =
  /\b(INSERT|UPDATE|DELETE|MERGE|TRUNCATE|COPY|CALL|DO|CREATE|ALTER|DROP|GRANT|REVOKE|LOCK|NOTIFY|LISTEN|SET|RESET|nextval|setval|set_config|pg_advisory\w*|pg_try_advisory\w*|pg_notify|pg_terminate_backend|pg_cancel_backend|FOR\s+(NO\s+KEY\s+)?UPDATE|FOR\s+(KEY\s+)?SHARE)\b/i;
function onlyReads(sql: string): boolean {
  return /^\s*(SELECT|WITH)\b/i.test(sql) && !WRITES.test(sql);
}

/** Statements that cannot run in a transaction block, or that are about transactions or the session. */
const RUNS_ALONE =
  /^\s*(CREATE\s+DATABASE|DROP\s+DATABASE|VACUUM|CLUSTER|REINDEX|CHECKPOINT|ALTER\s+SYSTEM|(CREATE|DROP)\s+(UNIQUE\s+)?INDEX\s+CONCURRENTLY|BEGIN|START\s+TRANSACTION|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE|PREPARE\s+TRANSACTION|LISTEN|UNLISTEN|SET|RESET|DISCARD)\b|\b(BEGIN|COMMIT|ROLLBACK)\s*;/i;

function sqlText(sql: unknown): string {
  if (typeof sql === 'string') return sql;
  const query = (sql as { query?: unknown } | undefined)?.query;
  return typeof query === 'string' ? query : '';
}

/** `SET LOCAL …` for the time left, at least 1 ms (0 would switch the timeouts off). */
function limitsFor(deadline: Deadline): string {
  const ms = Math.max(1, Math.ceil(deadline.remainingMs()));
  return ` SET LOCAL statement_timeout = ${ms}; SET LOCAL idle_in_transaction_session_timeout = ${ms};`;
}

type Callback<T> = (t: Transaction) => PromiseLike<T>;

export class ResilientSequelize extends Sequelize {
  constructor(
    uri: string,
    options: SequelizeOptions,
    private readonly logger?: Logger,
  ) {
    super(uri, options);
  }

  override transaction<T>(options: ManagedTransactionOptions, autoCallback: Callback<T>): Promise<T>;
  override transaction<T>(autoCallback: Callback<T>): Promise<T>;
  override transaction(options?: ManagedTransactionOptions): Promise<Transaction>;
  override async transaction<T>(first?: ManagedTransactionOptions | Callback<T>, second?: Callback<T>): Promise<T | Transaction> {
    const [options, callback] = typeof first === 'function' ? [{} as ManagedTransactionOptions, first] : [first ?? {}, second];
    const { retry = true, deadline: bounded = true, ...txOptions } = options;
    const deadline = bounded ? currentDeadline() : undefined;
    // A savepoint lives and dies with its transaction, which retries as a whole.
    if (txOptions.transaction) return callback ? super.transaction(txOptions, callback) : super.transaction(txOptions);
    if (!callback) return this.begin(txOptions, deadline);
    return this.runManaged(txOptions, callback, retry, deadline);
  }

  // All of Sequelize's query forms; the overloads are Sequelize's own.
  /* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access -- one override passes every overload of Sequelize's query through as it came */
  override async query(sql: any, options?: any): Promise<any> {
    const transaction: Transaction | undefined = options?.transaction;
    if (transaction) return super.query(this.withSessionLimits(sql, transaction) as string, options);
    const text = sqlText(sql);
    const reads = onlyReads(text);
    if (!reads && !RUNS_ALONE.test(text)) return this.transaction((t) => super.query(sql, { ...options, transaction: t }));
    return this.runStatement(() => super.query(sql, options), { reads });
  }
  /* eslint-enable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access */

  /**
   * Runs one statement outside any transaction (`run` sends it; it may be plain `pg` on a pooled connection)
   * under the same rules as `query`: retried while it was not sent, or always when it only reads; a write
   * whose connection was lost after sending is `OutcomeUnknownError`; under a deadline, a statement
   * cancelled by a timeout set from it (57014, or 55P03 for a lock wait) is `DeadlineExceededError`.
   */
  async runStatement<T>(run: () => Promise<T>, { reads }: { reads: boolean }): Promise<T> {
    const deadline = currentDeadline();
    if (!reads && deadline?.passed()) throw new DeadlineExceededError();
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (err) {
        if (deadline && (isStatementCancelled(err) || isLockTimeout(err))) throw new DeadlineExceededError();
        const failure = connectionFailureOf(err);
        if (!failure) throw err;
        const repeatable = failure === 'not_sent' || reads;
        if (repeatable && this.mayRetry(attempt, deadline)) {
          this.noteRetry(failure, attempt, 'statement', err);
          await pauseBefore(attempt + 1);
          if (!reads && deadline?.passed()) throw new DeadlineExceededError();
          continue;
        }
        this.noteGivingUp(failure, 'statement', err);
        throw repeatable ? new DatabaseUnavailableError(err) : new OutcomeUnknownError();
      }
    }
  }

  private mayRetry(attempt: number, deadline?: Deadline): boolean {
    return attempt < MAX_ATTEMPTS && !deadline?.passed();
  }

  private async runManaged<T>(options: TransactionOptions, callback: Callback<T>, retry: boolean, deadline?: Deadline): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      if (deadline?.passed()) throw new DeadlineExceededError();
      let failure: ConnectionFailure | undefined;
      let cause: unknown;
      try {
        return await this.attempt(options, callback, deadline);
      } catch (err) {
        if (err instanceof CommitLost) {
          this.noteGivingUp('lost', 'COMMIT', err.cause);
          throw new OutcomeUnknownError();
        }
        // Under a deadline, the statement_timeout set from it is what cancels a statement.
        if (deadline && isStatementCancelled(err)) throw new DeadlineExceededError();
        failure = connectionFailureOf(err);
        if (!failure) throw err;
        cause = err;
      }
      if (!(retry && this.mayRetry(attempt, deadline))) {
        this.noteGivingUp(failure, 'transaction', cause);
        if (deadline?.passed()) throw new DeadlineExceededError();
        throw new DatabaseUnavailableError(cause);
      }
      this.noteRetry(failure, attempt, 'transaction', cause);
      await pauseBefore(attempt + 1);
    }
  }

  /** One try: begin, run the callback, check the deadline, commit. */
  private async attempt<T>(options: TransactionOptions, callback: Callback<T>, deadline?: Deadline): Promise<T> {
    const transaction = await this.begin(options, deadline);
    let result: T;
    try {
      result = await callback(transaction);
    } catch (err) {
      await rollbackQuietly(transaction);
      throw err;
    }
    if (deadline?.passed()) {
      await rollbackQuietly(transaction);
      throw new DeadlineExceededError();
    }
    try {
      await transaction.commit();
    } catch (err) {
      // COMMIT that never left (the client knew its connection was dead): nothing committed, safe to retry.
      // COMMIT sent and its answer lost: the server may have committed.
      if (connectionFailureOf(err) === 'lost') throw new CommitLost(err);
      throw err;
    }
    return result;
  }

  /** Begins a transaction; under a deadline, with the session limits for the time left. */
  private async begin(options: TransactionOptions, deadline?: Deadline): Promise<Transaction> {
    if (!deadline) return super.transaction(options);
    if (deadline.passed()) throw new DeadlineExceededError();
    const limits = limitsFor(deadline);
    const transaction = await super.transaction({ ...options, [SESSION_LIMITS]: limits } as TransactionOptions);
    const own = (transaction as unknown as { options: Record<symbol, unknown> }).options;
    // Normally sent together with START TRANSACTION (withSessionLimits); on its own should that ever not match.
    if (!own[LIMITS_APPLIED]) {
      try {
        await super.query(limits.trim(), { transaction });
      } catch (err) {
        await rollbackQuietly(transaction);
        throw err;
      }
    }
    return transaction;
  }

  /** Appends the transaction's session limits to the statement that begins it (saves a round trip). */
  private withSessionLimits(sql: unknown, transaction: Transaction): unknown {
    const own = (transaction as unknown as { options?: Record<symbol, unknown> }).options;
    const limits = own?.[SESSION_LIMITS];
    if (typeof limits !== 'string' || own![LIMITS_APPLIED] || typeof sql !== 'string' || !BEGIN.test(sql.trim())) return sql;
    own![LIMITS_APPLIED] = true;
    return `${sql.trim().replace(/;?$/, ';')}${limits}`;
  }

  private noteRetry(failure: ConnectionFailure, attempt: number, what: string, err: unknown) {
    this.logger?.warn({ failure, attempt, what, error: (err as Error)?.message }, 'database connection failed; retrying');
  }

  private noteGivingUp(failure: ConnectionFailure, what: string, err: unknown) {
    this.logger?.error({ failure, what, error: (err as Error)?.message }, 'database connection failed; giving up');
  }
}

/** A COMMIT whose answer was lost with the connection. */
class CommitLost extends Error {
  constructor(override readonly cause: unknown) {
    super('the connection was lost during COMMIT');
  }
}

async function rollbackQuietly(transaction: Transaction) {
  if ((transaction as unknown as { finished?: string }).finished) return;
  // On a dead connection the rollback fails, and Sequelize destroys the connection: nothing to add.
  await transaction.rollback().catch(() => {});
}

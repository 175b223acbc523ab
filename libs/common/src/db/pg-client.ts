/**
 * node-postgres clients that a lost connection cannot take the process down with.
 *
 * A `pg.Client` emits `'error'` when its connection fails while no query is running (the backend was
 * terminated, the server restarted, the socket was reset). An `'error'` event without a listener is thrown
 * by Node and kills the process. Sequelize adds its listener only once the connection is open, so a backend
 * that dies while the connection opens escaped it. `ResilientClient` listens from the moment it exists, and
 * marks itself broken (`_invalid`, which Sequelize's pool checks before handing a connection out) as soon as
 * one of its queries fails because the connection did: without that, the pool would hand the dead connection
 * to the next request before the socket's end had been noticed.
 */
import pg from 'pg';
import { connectionFailureOf } from './connection-loss';

type Callback = (err: Error | null, result?: unknown) => void;

export class ResilientClient extends pg.Client {
  /** Set once the connection is known to be unusable; Sequelize's pool validation reads it. */
  _invalid = false;

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => {
      this._invalid = true;
    });
  }

  // Every form pg accepts: (text | config, [values], [callback]); a promise when there is no callback.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one override answers all of pg's overloads (a promise, or nothing with a callback)
  override query(...args: unknown[]): any {
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (err: Error | null, result?: unknown) => {
        if (err) this.noteFailure(err);
        (last as Callback)(err, result);
      };
      return (super.query as (...a: unknown[]) => unknown)(...args);
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) result.catch((err: Error) => this.noteFailure(err));
    return result;
  }

  private noteFailure(err: Error) {
    if (connectionFailureOf(err)) this._invalid = true;
  }
}

/** The `pg` module as Sequelize's `dialectModule` option expects it, with `ResilientClient` as its Client. */
export const resilientPg = { ...pg, Client: ResilientClient, types: pg.types };

/**
 * A client of its own (not pooled), e.g. for a session-level advisory lock. `onLost` hears about the
 * connection's failure once; the client is never queryable again after it.
 */
export function createPgClient(config: pg.ClientConfig, onLost?: (err: Error) => void): ResilientClient {
  const client = new ResilientClient(config);
  if (onLost) client.once('error', onLost);
  return client;
}

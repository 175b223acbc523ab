/**
 * The gateway's ear on `pi_auth_changes`: one dedicated PostgreSQL connection that LISTENs for the
 * notifications the database's triggers send when an API key, a user or a company changes (migration
 * 0010), so that every gateway replica drops what it cached about them.
 *
 * The connection is never allowed to take the gateway down. When it fails (PostgreSQL restarted, the
 * connection was killed, the network went quiet: a heartbeat notices) the listener reports a reset, since
 * notifications may be missed from then on, and reconnects with a growing delay (250 ms up to 5 s). Once it
 * LISTENs again it reports a second reset: whatever was cached before may have changed meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { Client, type QueryResult, type QueryResultRow } from 'pg';
import type { Logger } from '@pi/common';

export const AUTH_CHANGES_CHANNEL = 'pi_auth_changes';
/** How the connection shows in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'pi-gateway-auth-listener';

const FENCE_PREFIX = 'fence:';
const ACK_PREFIX = 'ack:';
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5000;
const HEARTBEAT_MS = 15_000;
const QUERY_TIMEOUT_MS = 5000;
const FENCE_TIMEOUT_MS = 2000;

interface Fence {
  /** Listeners when the marker was sent (unknown until that query answers). */
  expected: number;
  acks: number;
  done(): void;
}

export interface AuthChangeHandlers {
  /** One notification (`key:<hash>`, `user:<id>`, `company:<id>`, or anything else some later version sends). */
  change(payload: string): void;
  /** Notifications may have been missed: forget everything. */
  reset(): void;
}

export interface AuthChangeListenerOptions {
  databaseUrl: string;
  logger: Logger;
  handlers: AuthChangeHandlers;
}

export class AuthChangeListener {
  private client?: Client;
  private listening = false;
  private stopped = true;
  private delayMs = RECONNECT_MIN_MS;
  private reconnectTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private outageLogged = false;
  /** This gateway's fences awaiting acknowledgements, by id. */
  private readonly fences = new Map<string, Fence>();
  /** The last query sent on the connection: the next waits for it (see `ask`). */
  private lastQuery: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: AuthChangeListenerOptions) {}

  /** True while notifications are being received: only then may anything be served from a cache. */
  get isListening(): boolean {
    return this.listening;
  }

  /** Connects in the background; resolves after the first attempt, whatever its outcome. */
  start(): Promise<void> {
    this.stopped = false;
    return this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeatTimer);
    this.listening = false;
    for (const fence of [...this.fences.values()]) fence.done();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  /**
   * Resolves once every gateway listening on this database has received every change committed before this
   * call. A marker (`fence:<id>`) is sent now; notifications arrive in commit order, so a listener that sees
   * it has already applied the changes before it, and answers `ack:<id>`. This waits for as many answers as
   * there were listeners when the marker was sent (at most FENCE_TIMEOUT_MS: a replica that died meanwhile
   * cannot answer, and one whose listener is down serves nothing from its cache anyway). At once when this
   * gateway is not listening: nothing is cached here then, and the others' listeners hear the change alone.
   */
  async fence(): Promise<void> {
    const client = this.client;
    if (!this.listening || !client) return;
    const id = randomUUID();
    const answered = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.fences.delete(id);
        this.opts.logger.warn('not every gateway acknowledged a credential change in time');
        resolve();
      }, FENCE_TIMEOUT_MS);
      timer.unref();
      this.fences.set(id, {
        expected: Infinity,
        acks: 0,
        done: () => {
          clearTimeout(timer);
          this.fences.delete(id);
          resolve();
        },
      });
    });
    try {
      const { rows } = await this.ask<{ listeners: string }>(
        client,
        `SELECT pg_notify($1, $2), (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $3) AS listeners`,
        [AUTH_CHANGES_CHANNEL, `${FENCE_PREFIX}${id}`, LISTENER_APPLICATION_NAME],
      );
      const fence = this.fences.get(id);
      if (fence) {
        fence.expected = Number(rows[0].listeners);
        if (fence.acks >= fence.expected) fence.done();
      }
    } catch {
      this.fences.get(id)?.done();
    }
    await answered;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.opts.databaseUrl,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: QUERY_TIMEOUT_MS,
      // Every query here (LISTEN, fences, heartbeats) answers at once when the connection is healthy.
      query_timeout: QUERY_TIMEOUT_MS,
    });
    this.client = client;
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    client.on('notification', (msg) => {
      if (msg.channel === AUTH_CHANGES_CHANNEL) this.notified(msg.payload ?? '');
    });
    try {
      await client.connect();
      await this.ask(client, `LISTEN ${AUTH_CHANGES_CHANNEL}`);
    } catch (err) {
      this.lost(client, err as Error);
      return;
    }
    if (this.client !== client) return;
    this.listening = true;
    this.delayMs = RECONNECT_MIN_MS;
    // Changes made before LISTEN took effect reached nobody here.
    this.opts.handlers.reset();
    if (this.outageLogged) this.opts.logger.info('credential change listener reconnected; caches were emptied');
    this.outageLogged = false;
    this.heartbeatTimer = setInterval(() => void this.heartbeat(client), HEARTBEAT_MS);
    this.heartbeatTimer.unref();
  }

  private notified(payload: string): void {
    if (payload.startsWith(FENCE_PREFIX)) {
      // Everything before the marker has been applied (handlers run synchronously, in order): say so.
      const client = this.client;
      if (client) this.ask(client, 'SELECT pg_notify($1, $2)', [AUTH_CHANGES_CHANNEL, `${ACK_PREFIX}${payload.slice(FENCE_PREFIX.length)}`]).catch(() => {});
      return;
    }
    if (payload.startsWith(ACK_PREFIX)) {
      const fence = this.fences.get(payload.slice(ACK_PREFIX.length));
      if (fence && ++fence.acks >= fence.expected) fence.done();
      return;
    }
    this.opts.handlers.change(payload);
  }

  /**
   * A query on the connection once the one before has answered: fences, acknowledgements and heartbeats come
   * at any moment, and a pg client given a query while another runs only queues it (deprecated; pg 9 refuses it).
   */
  private ask<R extends QueryResultRow = QueryResultRow>(client: Client, text: string, values?: unknown[]): Promise<QueryResult<R>> {
    const answer = this.lastQuery.then(() => client.query<R>(text, values));
    this.lastQuery = answer.catch(() => {});
    return answer;
  }

  /** A connection that went quiet (a dead peer with no RST) is only noticed by asking it something. */
  private async heartbeat(client: Client): Promise<void> {
    try {
      await this.ask(client, 'SELECT 1');
    } catch (err) {
      this.lost(client, err as Error);
    }
  }

  /** Any failure of the current connection: stop trusting caches, drop the connection, try again later. */
  private lost(client: Client, err: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    clearInterval(this.heartbeatTimer);
    this.opts.handlers.reset();
    for (const fence of [...this.fences.values()]) fence.done();
    client.removeAllListeners('notification');
    // Keep an error listener: a late error from this socket must not become an uncaught exception.
    client.end().catch(() => {});
    if (this.stopped) return;
    if (!this.outageLogged) {
      this.opts.logger.warn({ error: err.message }, 'credential change listener lost its connection; caches are bypassed until it is back');
      this.outageLogged = true;
    }
    this.reconnectTimer = setTimeout(() => void this.connect(), this.delayMs);
    this.reconnectTimer.unref();
    this.delayMs = Math.min(this.delayMs * 2, RECONNECT_MAX_MS);
  }
}

/**
 * Runs an HTTP app until SIGTERM/SIGINT, then shuts down the way Kubernetes expects: stop accepting, let
 * in-flight requests finish (up to the grace period), run the cleanup hooks (pools, flushes), exit 0.
 */
import http from 'node:http';
import type { Express } from 'express';
import type { Logger } from '../logger';
import { shutdownTracing } from '../tracing/state';
import { countOwedAnswer } from './owed-answers';
import { answerConnect, answerExpectation, answerRefusal, hostRefusal } from './request-framing';
import { answerUnparsableRequest } from './unparsable-request';

export interface ServeOptions {
  port: number;
  host?: string;
  logger: Logger;
  /** Cleanup after the server stopped accepting: flush counters, close pools. Runs in order. */
  onShutdown?: Array<() => Promise<void>>;
  graceMs?: number;
}

/** Keep-alive must outlive the gateway agent's idle timeout so the gateway never reuses a closing socket. */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** The answers each server made by `listen` has in progress, so that `closeServer` can end their connections. */
const inProgress = new WeakMap<http.Server, Set<http.ServerResponse>>();

/**
 * Express gives every request and answer its own prototypes (`app.request`, `app.response`) with
 * `Object.setPrototypeOf` as it receives them. Changing an object's prototype costs V8 its map and the inline
 * caches that knew it: about 80 µs of CPU per request in a bare forwarding app, half of what the process spent
 * (docs/operations/benchmarks.md). A server that builds its requests and answers on those prototypes in the
 * first place leaves Express nothing to change: it still makes the same call, which now returns at once.
 */
function createExpressServer(app: Express): http.Server {
  return http.createServer(
    {
      IncomingMessage: madeOn<typeof http.IncomingMessage>(http.IncomingMessage, app.request),
      ServerResponse: madeOn<typeof http.ServerResponse>(http.ServerResponse, app.response),
      // `hostRefusal` checks Host instead, in the error shape and for a second Host too (http/request-framing.ts).
      requireHostHeader: false,
    },
    (req, res) => {
      const refusal = hostRefusal(req);
      if (refusal) answerRefusal(req, res, refusal);
      else app(req, res);
    },
  );
}

/**
 * A constructor that builds what `Base` builds, with `prototype` (which must inherit `Base.prototype`) as its
 * prototype. Node's IncomingMessage and ServerResponse are plain constructor functions, so `Base` runs on the
 * new object; `Reflect.construct` would also accept classes, but it tripled the process's CPU per request.
 */
function madeOn<C extends new (...args: never[]) => object>(Base: C, prototype: object): C {
  const init = Base as unknown as (this: object, ...args: unknown[]) => void;
  function Made(this: object, ...args: unknown[]): void {
    init.apply(this, args);
  }
  Made.prototype = prototype;
  return Made as unknown as C;
}

export function listen(app: Express, port: number, host = '0.0.0.0'): Promise<http.Server> {
  const server = createExpressServer(app);
  const answers = new Set<http.ServerResponse>();
  inProgress.set(server, answers);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    answers.add(res);
    const settle = countOwedAnswer(req.socket);
    res.once('close', () => {
      answers.delete(res);
      settle();
    });
  });
  server.on('clientError', answerUnparsableRequest);
  server.on('checkExpectation', answerExpectation);
  server.on('connect', answerConnect);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/**
 * Stops accepting, closes idle keep-alive sockets, and resolves when in-flight requests are done (or, after
 * `graceMs`, cuts what is left).
 *
 * A keep-alive connection with a request in flight stays open after its answer (`server.close()` only closes
 * connections that are idle when it is called), and the peer (the gateway's agent, the ingress, a browser)
 * goes on sending new requests on it: the process would wait out the whole grace period and then cut those
 * requests. So from now on every answer says `Connection: close` where its headers are not sent yet, and each
 * connection is closed as soon as its answer is finished.
 */
export function closeServer(server: http.Server, graceMs = 20_000): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, graceMs);
    force.unref();
    const lastAnswer = (res: http.ServerResponse) => {
      if (!res.headersSent) res.setHeader('Connection', 'close');
      res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
    };
    for (const res of inProgress.get(server) ?? []) lastAnswer(res);
    server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => lastAnswer(res));
    // Since Node 19, close() also closes the connections that are idle now.
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

export async function serve(app: Express, opts: ServeOptions): Promise<http.Server> {
  const server = await listen(app, opts.port, opts.host);
  opts.logger.info({ port: opts.port }, 'listening');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    opts.logger.info({ signal }, 'shutting down');
    await closeServer(server, opts.graceMs);
    for (const hook of opts.onShutdown ?? []) {
      await hook().catch((err: Error) => opts.logger.error({ err }, 'shutdown hook failed'));
    }
    opts.logger.info('stopped');
    await shutdownTracing(); // exports the spans still buffered
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  return server;
}

/**
 * Runs an HTTP app until SIGTERM/SIGINT, then shuts down the way Kubernetes expects: stop accepting, let
 * in-flight requests finish (up to the grace period), run the cleanup hooks (pools, flushes), exit 0.
 */
import http from 'node:http';
import type { Express } from 'express';
import type { Logger } from '../logger';

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

export function listen(app: Express, port: number, host = '0.0.0.0'): Promise<http.Server> {
  const server = http.createServer(app);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** Stops accepting, closes idle keep-alive sockets, and resolves when in-flight requests are done. */
export function closeServer(server: http.Server, graceMs = 20_000): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
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
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  return server;
}

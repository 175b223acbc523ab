/**
 * Forwarding to the services with http-proxy-middleware. Each request carries the caller's identity in an
 * internal token (the same identity's token is reused for half its 60 s life) and the request id; the
 * caller's own credentials (bearer token, API key in header, query or body) are stripped so that no service sees or logs them. Connections are kept alive.
 *
 * Whatever goes wrong upstream, the client is never left hanging (issue 6, "Versioning and hardening"):
 * - connection refused, reset or closed before a whole answer head, or no byte for PROXY_TIMEOUT_MS:
 *   503 `service_unavailable` in the error shape (with the gateway's own headers, none of the service's);
 * - the answer's head was already relayed and the service then drops the connection (or goes silent for
 *   PROXY_TIMEOUT_MS mid-body): no error answer can follow a sent head, so the client's connection is cut at
 *   once, and the client sees an incomplete answer rather than a truncated one that looks complete.
 * PROXY_TIMEOUT_MS is an inactivity timeout on the service's socket only. It is deliberately not also set on
 * the client's socket (http-proxy's `timeout`): that timer fired together with the upstream one and destroyed
 * the client's connection before the 503 could be written.
 */
import http from 'node:http';
import type net from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import { Plugin, createProxyMiddleware, debugProxyErrorsPlugin, fixRequestBody, proxyEventsPlugin } from 'http-proxy-middleware';
import { INTERNAL_AUTH_HEADER, InternalTokenSigner, ServiceUnavailableError, errorBody, requestIdOf, Logger } from '@pi/common';

export interface ServiceProxyOptions {
  target: string;
  internalJwtSecret: string;
  timeoutMs: number;
  logger: Logger;
}

/** Removes `api_key` from a path's query string. */
export function withoutApiKeyParam(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const params = new URLSearchParams(path.slice(q + 1));
  if (!params.has('api_key')) return path;
  params.delete('api_key');
  const rest = params.toString();
  return rest ? `${path.slice(0, q)}?${rest}` : path.slice(0, q);
}

/** The gateway's own headers of each proxied answer, before the service's are copied over them. */
const ownHeaders = new WeakMap<http.ServerResponse, http.OutgoingHttpHeaders>();
/** Requests whose exchange with the service was aborted by PROXY_TIMEOUT_MS (for the log line). */
const timedOut = new WeakSet<http.IncomingMessage>();

export function createServiceProxy(opts: ServiceProxyOptions): RequestHandler {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, timeout: 60_000 });
  const internalTokens = new InternalTokenSigner(opts.internalJwtSecret);

  /** One failed exchange with the service: logged once, answered in the error shape if still possible. */
  const fail = (err: Error, req: Request, res: http.ServerResponse | net.Socket) => {
    if (!('headersSent' in res)) {
      // A socket (upgrade requests): nothing to answer with.
      res.destroy();
      return;
    }
    if (res.writableEnded || res.destroyed) return;
    const clientGone = req.socket.destroyed;
    if (!clientGone) {
      const timeout = timedOut.has(req) ? { timeout_ms: opts.timeoutMs } : {};
      opts.logger.error({ err, request_id: requestIdOf(req), target: opts.target, head_sent: res.headersSent, ...timeout }, 'upstream unavailable');
    }
    if (res.headersSent || clientGone) {
      // Part of the service's answer is on its way: cut the connection so the client cannot take what it got
      // for a whole answer (ending a chunked answer here would make the truncation look complete).
      res.destroy();
      return;
    }
    // The service's status and headers may already be set (not sent): answer with the gateway's own only.
    const own = ownHeaders.get(res);
    if (own) {
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      for (const [name, value] of Object.entries(own)) if (value !== undefined) res.setHeader(name, value);
    }
    const response = res as Response;
    response.status(503).json(errorBody(new ServiceUnavailableError(), requestIdOf(req)));
  };

  return createProxyMiddleware<Request, Response>({
    target: opts.target,
    agent,
    // The default plugins but the logger, which built a URL per answer for a logger that writes nothing.
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin] as unknown as Array<Plugin<Request, Response>>,
    xfwd: true,
    // Inactivity on the service's socket, from the request on: aborts it, which lands in `fail`.
    proxyTimeout: opts.timeoutMs,
    pathRewrite: (path) => withoutApiKeyParam(path),
    on: {
      proxyReq: (proxyReq, req, res) => {
        ownHeaders.set(res, res.getHeaders());
        proxyReq.once('timeout', () => timedOut.add(req));
        proxyReq.removeHeader('authorization');
        proxyReq.removeHeader('x-api-key');
        proxyReq.removeHeader('cookie');
        proxyReq.setHeader('x-request-id', requestIdOf(req));
        // Always replaced: a client's own X-Internal-Auth never reaches a service. Public routes get an anonymous one.
        proxyReq.setHeader(INTERNAL_AUTH_HEADER, internalTokens.tokenFor(req.identity));
        if (req.body && typeof req.body === 'object' && 'api_key' in req.body) delete (req.body as Record<string, unknown>).api_key;
        fixRequestBody(proxyReq, req);
      },
      proxyRes: (proxyRes, req, res) => {
        // http-proxy pipes the answer but ignores its failures: a service that drops the connection (or is
        // aborted by the timeout) mid-answer would leave the client waiting for the rest forever.
        proxyRes.on('error', () => {});
        proxyRes.on('close', () => {
          if (!proxyRes.complete) fail(new Error('the service closed the connection before its answer was complete'), req, res);
        });
      },
      error: (err, req, res) => fail(err, req, res),
    },
  });
}

/**
 * Forwarding to the services with http-proxy-middleware. Each request carries the caller's identity in an
 * internal token (the same identity's token is reused for half its 60 s life) and the request id; the
 * caller's own credentials (bearer token, API key in header, query or body) are stripped so that no service sees or logs them. Connections are kept alive.
 *
 * Each request also carries `X-Request-Deadline` (libs/common http/request-deadline.ts): when the gateway
 * stops waiting, less a margin, so that the service abandons work it could no longer answer in time
 * instead of committing it after the client was told the outcome is unknown.
 *
 * Whatever goes wrong upstream, the client is never left hanging (issue 6, "Versioning and hardening"), and
 * the answer says whether the request can have had an effect (docs/api/deadlines-and-retries.md):
 * - the request never reached the service (connection refused, or not yet sent when the connection failed),
 *   or it was a read: 503 `service_unavailable`, nothing happened;
 * - the request was sent and no answer came within PROXY_TIMEOUT_MS: 504 `upstream_timeout` (for a change,
 *   the outcome is unknown; retrying with the same `Idempotency-Key` is safe);
 * - a change was sent and the connection was closed before a whole answer head: 503 `outcome_unknown`;
 * all in the error shape, with the gateway's own headers and none of the service's;
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
import {
  AppError,
  INTERNAL_AUTH_HEADER,
  InternalTokenSigner,
  OutcomeUnknownError,
  REQUEST_DEADLINE_HEADER,
  ServiceUnavailableError,
  UpstreamTimeoutError,
  errorBody,
  requestDeadlineHeader,
  requestIdOf,
  Logger,
} from '@pi/common';

export interface ServiceProxyOptions {
  target: string;
  internalJwtSecret: string;
  timeoutMs: number;
  logger: Logger;
}

/** `api_key` in any case, spelling or nesting: `API_KEY`, `api-key`, `api_key[]`, `api_key[0]`. */
const isApiKeyParam = (name: string) => name.split(/[[\].]/)[0].toLowerCase().replace(/[^a-z0-9]/g, '') === 'apikey';

/** Removes `api_key` (every spelling of it) from a path's query string. */
export function withoutApiKeyParam(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const params = new URLSearchParams(path.slice(q + 1));
  const names = [...new Set(params.keys())].filter(isApiKeyParam);
  if (!names.length) return path;
  for (const name of names) params.delete(name);
  const rest = params.toString();
  return rest ? `${path.slice(0, q)}?${rest}` : path.slice(0, q);
}

/** The gateway's own headers of each proxied answer, before the service's are copied over them. */
const ownHeaders = new WeakMap<http.ServerResponse, http.OutgoingHttpHeaders>();
/** Requests whose exchange with the service was aborted by PROXY_TIMEOUT_MS. */
const timedOut = new WeakSet<http.IncomingMessage>();
/** Requests handed whole to the connection to the service: from then on the service may act on them. */
const sent = new WeakSet<http.IncomingMessage>();

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What the client is told when no answer came: whether the request can have had an effect decides it. */
function failureAnswer(req: Request): AppError {
  const changesState = !SAFE_METHODS.has(req.method);
  if (!sent.has(req)) return new ServiceUnavailableError();
  if (timedOut.has(req)) return new UpstreamTimeoutError(changesState);
  return changesState ? new OutcomeUnknownError('The service closed the connection before answering') : new ServiceUnavailableError();
}

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
      const state = { head_sent: res.headersSent, request_sent: sent.has(req) };
      opts.logger.error({ err, request_id: requestIdOf(req), target: opts.target, ...state, ...timeout }, 'upstream unavailable');
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
    const answer = failureAnswer(req);
    (res as Response).status(answer.status).json(errorBody(answer, requestIdOf(req)));
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
        proxyReq.once('finish', () => sent.add(req));
        proxyReq.removeHeader('authorization');
        proxyReq.removeHeader('x-api-key');
        proxyReq.removeHeader('cookie');
        proxyReq.setHeader('x-request-id', requestIdOf(req));
        // Always replaced: a client's own X-Internal-Auth never reaches a service. Public routes get an anonymous one.
        proxyReq.setHeader(INTERNAL_AUTH_HEADER, internalTokens.tokenFor(req.identity));
        // Always replaced too: only the gateway knows when it stops waiting.
        proxyReq.setHeader(REQUEST_DEADLINE_HEADER, requestDeadlineHeader(opts.timeoutMs));
        if (req.body && typeof req.body === 'object' && 'api_key' in req.body) delete (req.body as Record<string, unknown>).api_key;
        // A body the gateway parsed (and inflated) is sent on re-serialized, as plain JSON.
        if (req.body !== undefined && req.readableEnded) proxyReq.removeHeader('content-encoding');
        fixRequestBody(proxyReq, req);
      },
      proxyRes: (proxyRes, req, res) => {
        // The service's own Vary is added to the gateway's (Origin, from CORS) instead of replacing it.
        const vary = res.getHeader('vary');
        if (vary !== undefined && proxyRes.headers.vary !== undefined) proxyRes.headers.vary = `${String(vary)}, ${proxyRes.headers.vary}`;
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

/**
 * Forwarding to the services on `node:http` with a keep-alive agent. A few dozen lines here do what
 * http-proxy-middleware and http-proxy did, without their per-request URL parsing, option merging and event
 * plumbing, which cost more of the gateway's CPU than the forwarding itself (docs/operations/benchmarks.md).
 * Each request carries the caller's identity in an internal token (the same identity's token is reused for
 * half its 60 s life) and the request id; the caller's own credentials (bearer token, API key in header,
 * query or body) are stripped so that no service sees or logs them.
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
 * PROXY_TIMEOUT_MS is an inactivity timeout on the service's socket only, never on the client's: a timer there
 * would fire together with the upstream one and destroy the client's connection before the 503 is written.
 */
import http from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
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
  queryParamName,
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
const isApiKeyParam = (name: string) =>
  name
    .split(/[[\].]/)[0]
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '') === 'apikey';

/**
 * Removes `api_key` (every spelling of it) from a path's query string, and keeps every other pair as the
 * client spelled it: the service checks the spelling too (a bad escape is refused there, naming the parameter).
 */
export function withoutApiKeyParam(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const pairs = path.slice(q + 1).split('&');
  const kept = pairs.filter((pair) => !isApiKeyParam(queryParamName(pair.split('=', 1)[0])));
  if (kept.length === pairs.length) return path;
  const rest = kept.join('&');
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

/**
 * Request headers never forwarded: the caller's credentials (no service sees or logs them), what the gateway
 * always sets itself, and the hop-by-hop headers of the client's connection (the agent manages its own).
 */
const NOT_FORWARDED = new Set([
  'authorization',
  'x-api-key',
  'cookie',
  INTERNAL_AUTH_HEADER,
  REQUEST_DEADLINE_HEADER,
  'x-request-id',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
]);
/**
 * A re-serialized body replaces the client's framing, encoding and type: it is JSON in UTF-8 whatever charset
 * the client's was in (a UTF-16 body labelled as such reached the service as UTF-8 bytes read as UTF-16).
 */
const BODY_FRAMING = new Set(['content-length', 'transfer-encoding', 'content-encoding', 'content-type']);
/** Answer headers of the service's own connection, not the client's. */
const ANSWER_HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/**
 * The body the gateway parsed, serialized again for the service (an `api_key` field removed), or undefined
 * when the gateway did not read the body: then the client's stream is piped on as it came.
 */
function parsedBody(req: Request): string | undefined {
  if (!req.readableEnded || req.body === undefined || req.body === null || typeof req.body !== 'object') return undefined;
  if ('api_key' in req.body) delete (req.body as Record<string, unknown>).api_key;
  return JSON.stringify(req.body);
}

/**
 * The headers the client's `Connection` header names: like `Connection` itself, they are for the client's
 * connection to the gateway only, and a proxy must not forward them (RFC 9110, section 7.6.1).
 */
function namedByConnection(req: Request): string[] {
  const connection = req.headers.connection;
  return connection ? connection.split(',').map((name) => name.trim().toLowerCase()) : [];
}

function forwardedHeaders(req: Request, body: string | undefined): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  const hopByHop = namedByConnection(req);
  for (const [name, value] of Object.entries(req.headers)) {
    if (NOT_FORWARDED.has(name) || (body !== undefined && BODY_FRAMING.has(name)) || hopByHop.includes(name)) continue;
    headers[name] = value;
  }
  const client = req.socket.remoteAddress ?? '';
  const forwardedFor = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = forwardedFor ? `${String(forwardedFor)}, ${client}` : client;
  headers['x-forwarded-proto'] = 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http';
  if (req.headers.host) headers['x-forwarded-host'] = req.headers.host;
  if (body !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = Buffer.byteLength(body);
  }
  return headers;
}

/** The service's answer relayed: its status and headers over the gateway's own (Vary merged), then its body. */
function relayAnswer(service: http.IncomingMessage, res: Response): void {
  res.statusCode = service.statusCode ?? 502;
  if (service.statusMessage) res.statusMessage = service.statusMessage;
  const vary = res.getHeader('vary');
  for (const [name, value] of Object.entries(service.headers)) {
    if (value === undefined || ANSWER_HOP_BY_HOP.has(name)) continue;
    // The service's own Vary is added to the gateway's (Origin, from CORS) instead of replacing it.
    res.setHeader(name, name === 'vary' && vary !== undefined ? `${String(vary)}, ${String(value)}` : value);
  }
  service.pipe(res);
}

/**
 * Called once the client's answer is complete. When the client is still sending its body (the service
 * answered without reading all of it, or the exchange failed midway), nothing more goes to the service, whose
 * connection is closed (it cannot carry another request with part of this one's body unsent), and the rest is
 * read off the client's connection and dropped, as Node does for a body no handler read. Left piped, the
 * client's request stayed paused and the next request on its keep-alive connection was never read.
 */
function stopForwardingBody(req: Request, toService: http.ClientRequest): void {
  if (req.readableEnded) return;
  req.unpipe(toService);
  toService.destroy();
  req.resume();
}

export function createServiceProxy(opts: ServiceProxyOptions): RequestHandler {
  const target = new URL(opts.target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, timeout: 60_000 });
  const internalTokens = new InternalTokenSigner(opts.internalJwtSecret);

  /** One failed exchange with the service: logged once, answered in the error shape if still possible. */
  const fail = (err: Error, req: Request, res: Response) => {
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
    res.status(answer.status).json(errorBody(answer, requestIdOf(req)));
  };

  return (req, res) => {
    ownHeaders.set(res, res.getHeaders());
    const body = parsedBody(req);
    const headers = forwardedHeaders(req, body);
    headers['x-request-id'] = requestIdOf(req);
    // Always replaced: a client's own X-Internal-Auth never reaches a service. Public routes get an anonymous one.
    headers[INTERNAL_AUTH_HEADER] = internalTokens.tokenFor(req.identity);
    // Always replaced too: only the gateway knows when it stops waiting.
    headers[REQUEST_DEADLINE_HEADER] = requestDeadlineHeader(opts.timeoutMs);
    const toService = http.request({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: withoutApiKeyParam(req.url),
      headers,
      agent,
    });
    // Inactivity on the service's socket, from the request on: aborting it lands in `fail`.
    toService.setTimeout(opts.timeoutMs, () => {
      timedOut.add(req);
      toService.destroy(new Error(`no answer from the service within ${opts.timeoutMs} ms`));
    });
    toService.once('finish', () => sent.add(req));
    toService.on('error', (err) => fail(err, req, res));
    toService.on('response', (answer) => {
      // A service that drops the connection (or is aborted by the timeout) mid-answer must not leave the
      // client waiting for the rest forever, nor holding a truncated answer that looks complete.
      answer.on('error', () => {});
      answer.on('close', () => {
        if (!answer.complete) fail(new Error('the service closed the connection before its answer was complete'), req, res);
      });
      relayAnswer(answer, res);
    });
    // A client that goes away stops the exchange (what was already sent may still take effect).
    res.on('close', () => {
      if (!res.writableFinished) toService.destroy();
    });
    res.once('finish', () => stopForwardingBody(req, toService));
    if (body !== undefined) toService.end(body);
    else if (req.readableEnded) toService.end();
    else req.pipe(toService);
  };
}

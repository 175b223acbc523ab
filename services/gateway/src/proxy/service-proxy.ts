/**
 * Forwarding to the services with http-proxy-middleware. Each request carries the caller's identity in a
 * fresh internal token and the request id; the caller's own credentials (bearer token, API key in header,
 * query or body) are stripped so that no service sees or logs them. Connections are kept alive.
 */
import http from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import { INTERNAL_AUTH_HEADER, ServiceUnavailableError, errorBody, requestIdOf, signInternalToken, Logger } from '@pi/common';

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

export function createServiceProxy(opts: ServiceProxyOptions): RequestHandler {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, timeout: 60_000 });
  return createProxyMiddleware<Request, Response>({
    target: opts.target,
    agent,
    xfwd: true,
    proxyTimeout: opts.timeoutMs,
    timeout: opts.timeoutMs,
    pathRewrite: (path) => withoutApiKeyParam(path),
    on: {
      proxyReq: (proxyReq, req) => {
        proxyReq.removeHeader('authorization');
        proxyReq.removeHeader('x-api-key');
        proxyReq.removeHeader('cookie');
        proxyReq.setHeader('x-request-id', requestIdOf(req));
        // Always replaced: a client's own X-Internal-Auth never reaches a service. Public routes get an anonymous one.
        proxyReq.setHeader(INTERNAL_AUTH_HEADER, signInternalToken(req.identity, requestIdOf(req), opts.internalJwtSecret));
        if (req.body && typeof req.body === 'object' && 'api_key' in req.body) delete (req.body as Record<string, unknown>).api_key;
        fixRequestBody(proxyReq, req);
      },
      error: (err, req, res) => {
        opts.logger.error({ err, request_id: requestIdOf(req), target: opts.target }, 'upstream unavailable');
        const response = res as Response;
        if ('headersSent' in response && !response.headersSent) {
          response.status(503).json(errorBody(new ServiceUnavailableError(), requestIdOf(req)));
        } else {
          res.end();
        }
      },
    },
  });
}

/**
 * `GET /metrics` in Prometheus' text format (docs/operations/metrics.md "Where"). It is never a public route:
 * the internal services serve it on their own port beside their probes (only the gateway and the scraper
 * reach those ports), the gateway on a listener of its own (GATEWAY_METRICS_PORT), never on its public
 * port. With METRICS_TOKEN set, it answers only `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise), so a
 * port reachable by more than the scraper still shows nothing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { Express, Router } from 'express';
import { AuthenticationError } from '../errors';
import { errorMiddleware, notFoundMiddleware } from '../http/error-middleware';
import { requestId } from '../http/request-id';
import type { Logger } from '../logger';
import type { MetricsRegistry } from './registry';

export const METRICS_PATH = '/metrics';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether `header` is `Bearer <token>` (compared in constant time). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1]), digest(token));
}

export interface MetricsEndpointOptions {
  /** METRICS_TOKEN: required as a bearer token when set. */
  token?: string;
}

export function metricsRouter(registry: MetricsRegistry, opts: MetricsEndpointOptions = {}): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get(METRICS_PATH, async (req, res, next) => {
    if (opts.token && !bearerMatches(req.get('authorization'), opts.token)) {
      return next(new AuthenticationError('The metrics need the bearer token METRICS_TOKEN.'));
    }
    try {
      const text = await registry.metrics();
      res.type(registry.contentType).send(text);
    } catch (err) {
      next(err);
    }
  });
  return router;
}

/** A listener of its own that answers `/metrics` and nothing else (the gateway's, off its public port). */
export function metricsApp(registry: MetricsRegistry, logger: Logger, opts: MetricsEndpointOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId());
  app.use(metricsRouter(registry, opts));
  app.use(notFoundMiddleware());
  app.use(errorMiddleware(logger));
  return app;
}

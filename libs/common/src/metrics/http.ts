/**
 * Request rate and latency of a service's HTTP server, as one histogram: `http_request_duration_seconds`
 * with `method`, `route` (the documented template, see route-label.ts) and `status_code`. Its `_count` is the
 * request rate. Every label has a bounded set of values: a path that reaches no route is `unmatched`, an
 * unknown method `OTHER`, an answer the client did not wait for `aborted`.
 */
import type { Request, RequestHandler } from 'express';
import { Histogram } from 'prom-client';
import type { MetricsRegistry } from './registry';
import { routeTemplateOf } from './route-label';

export const HTTP_DURATION_METRIC = 'http_request_duration_seconds';

/** From a cached read (a few ms) to the gateway's 30 s upstream timeout. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Paths a service answers before any route table (the probes and this endpoint). */
const OPERATIONAL = new Set(['/healthz', '/readyz', '/metrics']);

export const UNMATCHED_ROUTE = 'unmatched';

export interface HttpMetricsOptions {
  /** The route template of a finished request; by default what the path gate or table recorded. */
  routeOf?: (req: Request) => string | undefined;
}

export function httpMetrics(registry: MetricsRegistry, opts: HttpMetricsOptions = {}): RequestHandler {
  const histogram = new Histogram({
    name: HTTP_DURATION_METRIC,
    help: 'HTTP requests answered, by method, route template and status code, and how long they took.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  const routeOf = opts.routeOf ?? routeTemplateOf;
  return (req, res, next) => {
    const end = histogram.startTimer();
    let recorded = false;
    const done = () => {
      if (recorded) return;
      recorded = true;
      const route = routeOf(req) ?? (OPERATIONAL.has(req.path) ? req.path : UNMATCHED_ROUTE);
      const method = METHODS.has(req.method) ? req.method : 'OTHER';
      end({ method, route, status_code: res.writableFinished ? String(res.statusCode) : 'aborted' });
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}

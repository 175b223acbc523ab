/**
 * One JSON line per request with its id, method, URL, status and time: `{req: {id, method, url}, res:
 * {statusCode}, responseTime, msg}`, msg `request completed` (`request errored` from 500 on, `request
 * aborted` when the client went away first), at info, warn from 400, error from 500. URLs are scrubbed of
 * credentials; no header is logged. Probes (`/healthz`, `/readyz`) and scrapes (`/metrics`, every few seconds;
 * counted in the metrics themselves) are not logged.
 *
 * Written by hand rather than with pino-http, which built a child logger per request and ran the standard
 * serializers over every header before ours discarded them: most of the access log's cost, on every request
 * of every service, whether the line was written or not (docs/operations/benchmarks.md).
 */
import type { RequestHandler } from 'express';
import { requestIdOf } from '../identity';
import { Logger, scrubUrl } from '../logger';

const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (PROBES.has(req.url)) return next();
    const started = Date.now();
    // As the client sent it: routers and the proxy may rewrite req.url on the way.
    const url = req.originalUrl ?? req.url;
    const done = () => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const msg = !res.writableFinished ? 'request aborted' : status >= 500 ? 'request errored' : 'request completed';
      logger[level](
        { req: { id: requestIdOf(req), method: req.method, url: scrubUrl(url) }, res: { statusCode: status }, responseTime: Date.now() - started },
        msg,
      );
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

import type { RequestHandler } from 'express';
import pinoHttp from 'pino-http';
import { Logger, scrubUrl } from '../logger';

/**
 * One JSON line per request with its id, status and time; headers omitted. The URL is the one the client sent
 * (Express's `originalUrl`, before the path table rewrote it), scrubbed of credentials by name and by shape
 * (logger.ts, which also redacts every finished line).
 */
export function accessLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req) => (req as unknown as { id: string }).id,
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    serializers: {
      // pino-http hands over its standard form of the request, whose `url` is Express's `originalUrl`.
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: scrubUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
  }) as unknown as RequestHandler;
}

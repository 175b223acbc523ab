/**
 * Deprecated operations, in one table (SPEC.md, Versioning 4–6): their answers carry
 * `X-API-Deprecated: true` and, where a removal date exists, `X-API-Sunset`. The gateway sets them because it
 * is the one place that sees the request as the client sent it (it strips `api_key` before forwarding).
 */
import type { Request, RequestHandler } from 'express';

/** What the OpenAPI document shows of a deprecation (docs/document.ts marks it). */
export interface DocumentedDeprecation {
  /** What is deprecated, for the README and the OpenAPI document. */
  what: string;
  /** The documented operation it belongs to. */
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  /** A deprecated query parameter of that operation; absent when the whole operation is deprecated. */
  parameter?: string;
  sunset?: string;
}

export interface Deprecation extends DocumentedDeprecation {
  matches(req: Request): boolean;
}

export function deprecationTable(config: { QR_API_KEY_URL_SUNSET: string }): Deprecation[] {
  return [
    {
      what: 'api_key in QR-code URLs (GET /go/<code>/?api_key=…)',
      method: 'get',
      path: '/go/{code}/',
      parameter: 'api_key',
      matches: (req) => req.path.startsWith('/go/') && 'api_key' in (req.query as Record<string, unknown>),
      sunset: config.QR_API_KEY_URL_SUNSET,
    },
  ];
}

export function deprecationHeaders(table: Deprecation[]): RequestHandler {
  return (req, res, next) => {
    const hit = table.find((d) => d.matches(req));
    if (hit) {
      res.setHeader('X-API-Deprecated', 'true');
      if (hit.sunset) res.setHeader('X-API-Sunset', hit.sunset);
    }
    next();
  };
}

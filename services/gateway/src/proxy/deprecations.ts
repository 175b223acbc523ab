/**
 * Deprecated operations, in one table (docs/api/openapi-and-versioning.md): their answers carry
 * `X-API-Deprecated: true` and, where a removal date exists, `X-API-Sunset`. The gateway sets them because it
 * is the one place that sees the request as the client sent it (it strips `api_key` before forwarding). A row
 * says what it covers once: the headers go on the answers of the documented operation it names (the one the
 * request reaches through the public path table, `req.publicPath`, in whatever spelling it was sent), when
 * the deprecated parameter is present; the OpenAPI document (docs/document.ts) marks the same operation.
 */
import type { RequestHandler } from 'express';
import type { HttpMethod } from '@pi/common';

export interface Deprecation {
  /** What is deprecated, for the docs and the OpenAPI document. */
  what: string;
  /** The documented operation it belongs to. */
  method: HttpMethod;
  path: string;
  /** A deprecated query parameter of that operation; absent when the whole operation is deprecated. */
  parameter?: string;
  sunset?: string;
}

export function deprecationTable(config: { QR_API_KEY_URL_SUNSET: string }): Deprecation[] {
  return [
    {
      what: 'api_key in QR-code URLs (GET /go/<code>/?api_key=…)',
      method: 'get',
      path: '/go/{code}/',
      parameter: 'api_key',
      sunset: config.QR_API_KEY_URL_SUNSET,
    },
  ];
}

export function deprecationHeaders(table: Deprecation[]): RequestHandler {
  return (req, res, next) => {
    const op = req.publicPath?.operationFor(req.method);
    const hit =
      op && table.find((d) => d.method === op.method && d.path === op.path && (!d.parameter || d.parameter in (req.query as Record<string, unknown>)));
    if (hit) {
      res.setHeader('X-API-Deprecated', 'true');
      if (hit.sunset) res.setHeader('X-API-Sunset', hit.sunset);
    }
    next();
  };
}

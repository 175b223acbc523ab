import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

/** Accepts a well-formed incoming `X-Request-Id` (so a trace crosses the gateway) or makes one, and echoes it. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.id = incoming && WELL_FORMED.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    next();
  };
}

import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

/** A request's id: a well-formed incoming `X-Request-Id` (so a trace crosses the gateway), or a new one. */
export function wellFormedRequestId(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && WELL_FORMED.test(incoming) ? incoming : randomUUID();
}

/** Gives each request its id (`wellFormedRequestId`) and echoes it. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    req.id = wellFormedRequestId(req.get('x-request-id'));
    res.setHeader('X-Request-Id', req.id);
    next();
  };
}

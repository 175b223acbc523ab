/**
 * JSON request bodies, parsed the same way at the gateway and in every service (docs/api/conventions.md "Conventions"):
 * - express.json within the size limit, counted after inflation, so a compressed bomb is a 413 like any other
 *   oversized body; a `Content-Encoding` the body does not match is a 400 and an unknown one a 415
 *   (error-middleware.ts translates body-parser's errors);
 * - bytes that are not UTF-8 in a body read as UTF-8 are a 400 naming `body` (`refuseBytesNotUtf8`): decoding
 *   would have made U+FFFD of them, and `"Café"` sent in Latin-1 would have been stored as `"Caf�"`;
 * - then, in one walk (json-breadth.ts), the nesting depth: a body nested deeper than MAX_JSON_DEPTH objects
 *   or arrays is a 400 naming `body`. JSON.parse takes any depth, but what comes after it recurses
 *   (JSON.stringify when the gateway forwards the body, validation, logging) and runs out of stack on a few
 *   thousand levels, which the gateway used to report as an unavailable service. No request of this API
 *   nests beyond a handful of levels;
 * - and the breadth: an object of more than MAX_OBJECT_MEMBERS members or an array of more than
 *   MAX_ARRAY_ITEMS items is a 400 naming it, before anything checks its members one by one.
 */
import { isUtf8 } from 'node:buffer';
import express, { RequestHandler } from 'express';
import { ValidationError } from '../errors';
import { BODY_NOT_UTF8 } from './error-middleware';
import { breadthOf } from './json-breadth';

export const MAX_JSON_DEPTH = 32;

/**
 * body-parser's `verify` for a text body (JSON, CSV): refuses one that is to be read as UTF-8 and holds bytes
 * that are not (a body in another charset that says so in its Content-Type is read in that charset instead).
 */
export function refuseBytesNotUtf8(_req: unknown, _res: unknown, body: Buffer, charset: string): void {
  if (charset === 'utf-8' && !isUtf8(body)) throw Object.assign(new Error('The request body is not UTF-8 text.'), { type: BODY_NOT_UTF8 });
}

export function jsonBody(opts: { limit: string; maxDepth?: number }): RequestHandler {
  const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH;
  const parse = express.json({ limit: opts.limit, verify: refuseBytesNotUtf8 });
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      // One walk for both bounds; too wide is refused here too, so that the gateway neither serializes such
      // a body again nor forwards it.
      const { tooDeep, tooWide } = breadthOf(req.body, 'body', maxDepth);
      if (tooDeep) {
        req.body = undefined;
        return next(new ValidationError({ body: `nests objects or arrays more than ${maxDepth} levels deep` }, 'The JSON body is nested too deeply.'));
      }
      if (tooWide) {
        req.body = undefined;
        return next(new ValidationError(tooWide));
      }
      next();
    });
}

/**
 * JSON request bodies, parsed the same way at the gateway and in every service (docs/api/conventions.md "Conventions"):
 * - express.json within the size limit, counted after inflation, so a compressed bomb is a 413 like any other
 *   oversized body; a `Content-Encoding` the body does not match is a 400 and an unknown one a 415
 *   (error-middleware.ts translates body-parser's errors);
 * - then the nesting depth: a body nested deeper than MAX_JSON_DEPTH objects or arrays is a 400 naming `body`.
 *   JSON.parse takes any depth, but what comes after it recurses (JSON.stringify when the gateway forwards the
 *   body, validation, logging) and runs out of stack on a few thousand levels, which the gateway used to
 *   report as an unavailable service. No request of this API nests beyond a handful of levels.
 */
import express, { RequestHandler } from 'express';
import { ValidationError } from '../errors';

export const MAX_JSON_DEPTH = 32;

/** True when `value` has objects or arrays nested more than `max` deep (the top level is 1); iterative. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

export function jsonBody(opts: { limit: string; maxDepth?: number }): RequestHandler {
  const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH;
  const parse = express.json({ limit: opts.limit });
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (nestsDeeperThan(req.body, maxDepth)) {
        req.body = undefined;
        return next(new ValidationError({ body: `nests objects or arrays more than ${maxDepth} levels deep` }, 'The JSON body is nested too deeply.'));
      }
      next();
    });
}

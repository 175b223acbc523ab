/**
 * 405 for the gateway's own routes: a known path asked with a method it doesn't have answers
 * `method_not_allowed` in the error shape with an `Allow` header; a plain `OPTIONS` (not a CORS preflight,
 * which cors.ts answers first) gets 204 with `Allow`. Paths proxied to the services are not covered here.
 * Keep this table in step with routes/* (test/e2e/cors.test.ts checks a few rows).
 */
import type { RequestHandler } from 'express';
import { AppError } from '@pi/common';

interface OwnRoute {
  pattern: RegExp;
  methods: string[];
}

const SEGMENT = '[^/]+';
const route = (path: string, ...methods: string[]): OwnRoute => ({ pattern: new RegExp(`^${path}/?$`, 'i'), methods });

/** First match wins (so `users/me/` before `users/:id/`). */
export const OWN_ROUTES: OwnRoute[] = [
  route('/api/token', 'POST'),
  route('/api/token/refresh', 'POST'),
  route('/api/v1/register', 'POST'),
  route('/api/v1/users', 'GET', 'POST'),
  route('/api/v1/users/me', 'GET'),
  route(`/api/v1/users/${SEGMENT}`, 'GET', 'PATCH', 'DELETE'),
  route('/api/v1/api-keys', 'GET', 'POST'),
  route(`/api/v1/api-keys/${SEGMENT}`, 'GET', 'PATCH', 'DELETE'),
  route(`/api/v1/api-keys/${SEGMENT}/rotate`, 'POST'),
];

/** The `Allow` value: HEAD wherever GET is (Express answers it), and OPTIONS everywhere. */
export function allowHeader(methods: string[]): string {
  const all = [...methods];
  if (all.includes('GET')) all.splice(all.indexOf('GET') + 1, 0, 'HEAD');
  return [...all, 'OPTIONS'].join(', ');
}

export function methodNotAllowed(): RequestHandler {
  return (req, res, next) => {
    const known = OWN_ROUTES.find((r) => r.pattern.test(req.path));
    if (!known) return next();
    const allow = allowHeader(known.methods);
    if (allow.split(', ').includes(req.method) && req.method !== 'OPTIONS') return next();
    res.setHeader('Allow', allow);
    if (req.method === 'OPTIONS') return void res.status(204).end();
    next(new AppError(405, 'method_not_allowed', `Method ${req.method} not allowed.`, { allowed_methods: allow.split(', ') }));
  };
}

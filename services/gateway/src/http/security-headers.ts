/**
 * Security headers (helmet) by path. Everything gets helmet's defaults, except:
 * - `/widget/` and below (the QR-code widget page): may be framed by any site: CSP `frame-ancestors *`, no
 *   `X-Frame-Options`, and `Cross-Origin-Resource-Policy: cross-origin` (an embedder using COEP can frame it);
 * - `/dashboard/` and below: may be framed by no site: CSP `frame-ancestors 'none'` and `X-Frame-Options: DENY`;
 * - the documentation UIs (docs/ui.ts): `/api/redoc/` adds `worker-src 'self' blob:` (Redoc starts its search
 *   worker from a `blob:` URL); `/api/docs/` (Swagger UI) needs `img-src 'self' data:` (its icons), which is
 *   helmet's default, stated here so that it stays so. Both keep `script-src 'self'` (no inline scripts) and
 *   helmet's `style-src 'self' https: 'unsafe-inline'` (both UIs set inline styles).
 * Served over plain HTTP on a non-loopback address (a LAN install: PUBLIC_BASE_URL `http://192.168.1.10:8000`),
 * helmet's `upgrade-insecure-requests` would make browsers fetch the pages' own scripts over HTTPS, which
 * such an install does not answer: it is left out there, and only there.
 * The rules are matched on the path, case-insensitively as Express routes are, whatever answers the path
 * (a 404 carries them too). Nothing outside these paths is looser than helmet's defaults.
 */
import type { RequestHandler } from 'express';
import helmet, { HelmetOptions } from 'helmet';

interface PathRule {
  /** For the tests and the docs. */
  name: string;
  pattern: RegExp;
  options: HelmetOptions;
}

const under = (prefix: string) => new RegExp(`^${prefix}(/.*)?$`, 'i');

export const SECURITY_HEADER_RULES: PathRule[] = [
  {
    name: 'widget',
    pattern: under('/widget'),
    options: {
      contentSecurityPolicy: { directives: { frameAncestors: ['*'] } },
      xFrameOptions: false,
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    },
  },
  {
    name: 'dashboard',
    pattern: under('/dashboard'),
    options: {
      contentSecurityPolicy: { directives: { frameAncestors: ["'none'"] } },
      xFrameOptions: { action: 'deny' },
    },
  },
  {
    name: 'redoc',
    pattern: under('/api/redoc'),
    options: { contentSecurityPolicy: { directives: { workerSrc: ["'self'", 'blob:'] } } },
  },
  {
    name: 'swagger-ui',
    pattern: under('/api/docs'),
    options: { contentSecurityPolicy: { directives: { imgSrc: ["'self'", 'data:'] } } },
  },
];

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True where browsers would upgrade the pages' requests to an HTTPS the server does not speak. */
export function servedOverPlainHttp(publicBaseUrl: string): boolean {
  const url = new URL(publicBaseUrl);
  return url.protocol === 'http:' && !LOOPBACK.has(url.hostname);
}

function withoutUpgrade(options: HelmetOptions): HelmetOptions {
  const csp = typeof options.contentSecurityPolicy === 'object' ? options.contentSecurityPolicy : {};
  return { ...options, contentSecurityPolicy: { ...csp, directives: { ...csp.directives, upgradeInsecureRequests: null } } };
}

/** Replaces `app.use(helmet())`: the first rule whose path matches, else helmet's defaults. */
export function securityHeaders(publicBaseUrl: string, rules: PathRule[] = SECURITY_HEADER_RULES): RequestHandler {
  const adapt = servedOverPlainHttp(publicBaseUrl) ? withoutUpgrade : (options: HelmetOptions) => options;
  const compiled = rules.map((rule) => ({ pattern: rule.pattern, handler: helmet(adapt(rule.options)) }));
  const defaults = helmet(adapt({}));
  return (req, res, next) => (compiled.find((rule) => rule.pattern.test(req.path))?.handler ?? defaults)(req, res, next);
}

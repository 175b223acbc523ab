/**
 * The pages' entry points: `/widget/` (and `/widget/sdk.js`) and `/dashboard/`, served as files from web/dist,
 * which `npm run build` makes (web/README.md). The HTML is revalidated on every load (`no-cache`), so a new
 * build shows at once; sdk.js keeps its name (other sites load it): cached for five minutes. Their assets are
 * a static mount (router.ts), not operations.
 */
import path from 'node:path';
import type { Response } from 'express';
import { endpoints, htmlResponse, type Call, type ServiceApi } from '@pi/common';
import type { GatewayContext } from '../context';
import { packageRoot } from '../package-root';

/** The repository's web/dist folder (web/ is beside services/). */
export const WEB_DIST = path.join(packageRoot(), '../../web/dist');

/**
 * `res.sendFile` as Express answers it without a callback (an error but a broken connection goes to the error
 * handler), awaited: the file is sent before the handler returns.
 */
function sendFile(res: Response, file: string, cacheControl: string): Promise<void> {
  res.setHeader('Cache-Control', cacheControl);
  return new Promise((resolve, reject) =>
    res.sendFile(file, (err?: NodeJS.ErrnoException) => (err && err.code !== 'ECONNABORTED' && err.syscall !== 'write' ? reject(err) : resolve())),
  );
}

const tag = 'pages';

export const pageEndpoints = endpoints<GatewayContext>(
  {
    method: 'get',
    path: '/widget/',
    operationId: 'getWidgetPage',
    tag,
    summary: 'The widget page',
    description: 'Opened from a scan (`?token=`, exchanged once) or embedded by `sdk.js` with a company API key. Any site may frame it.',
    security: 'none',
    responses: htmlResponse('The widget.'),
    handle: async (_ctx, { res }: Call) => sendFile(res, path.join(WEB_DIST, 'widget', 'index.html'), 'no-cache'),
  },
  {
    method: 'get',
    path: '/widget/sdk.js',
    operationId: 'getWidgetSdk',
    tag,
    summary: 'The embedding script',
    description: "Mounts the widget in a sandboxed iframe on a site in the key's `allowed_domains`.",
    security: 'none',
    responses: { 200: { description: 'The script.', contentType: 'application/javascript' } },
    handle: async (_ctx, { res }: Call) => sendFile(res, path.join(WEB_DIST, 'sdk', 'sdk.js'), 'public, max-age=300'),
  },
  {
    method: 'get',
    path: '/dashboard/',
    operationId: 'getDashboardPage',
    tag,
    summary: 'The administration dashboard',
    description: 'Signs in with a username and password (bearer tokens). It may not be framed.',
    security: 'none',
    responses: htmlResponse('The dashboard.'),
    handle: async (_ctx, { res }: Call) => sendFile(res, path.join(WEB_DIST, 'dashboard', 'index.html'), 'no-cache'),
  },
);

/** The pages' entry points in the OpenAPI document. */
export const pagesApi: ServiceApi = {
  service: 'pages',
  tags: [{ name: 'pages', description: 'The widget and the dashboard, served by the gateway.' }],
  operations: pageEndpoints,
};

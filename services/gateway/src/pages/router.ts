/**
 * The pages: `/widget/` (and `/widget/sdk.js`) and `/dashboard/`, served as files from web/dist, which
 * `npm run build` makes (web/README.md): per page an `index.html` and its `assets/` (one bundled script and one
 * stylesheet, with source maps). Caching:
 * - the HTML is revalidated on every load (`no-cache`, with an ETag), so a new build shows at once;
 * - assets carry a hash of their content in their name, so they never change under a name: cached for a year
 *   (`immutable`). An unknown asset name falls through to the 404;
 * - sdk.js keeps its name (other sites load it): cached for five minutes.
 * Only the page entry points are routes (and documented operations); their assets are a static mount.
 */
import path from 'node:path';
import express, { Router } from 'express';
import { ROUTER_OPTIONS } from '@pi/common';
import { packageRoot } from '../package-root';

/** The repository's web/dist folder (web/ is beside services/). */
const WEB_DIST = path.join(packageRoot(), '../../web/dist');

const ASSET_OPTIONS = { index: false, immutable: true, maxAge: '365d', etag: true, fallthrough: true } as const;

const PAGES = ['widget', 'dashboard'];

/** Where the pages' assets are mounted (entries of the public path table, proxy/route-table.ts). */
export const PAGE_ASSET_MOUNTS = PAGES.map((page) => `/${page}/assets/`);

export function pagesRouter(): Router {
  const router = Router(ROUTER_OPTIONS);
  for (const page of PAGES) {
    router.get(`/${page}/`, (_req, res) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(path.join(WEB_DIST, page, 'index.html'));
    });
    router.use(`/${page}/assets`, express.static(path.join(WEB_DIST, page, 'assets'), ASSET_OPTIONS));
  }
  router.get('/widget/sdk.js', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.sendFile(path.join(WEB_DIST, 'sdk', 'sdk.js'));
  });
  return router;
}

/**
 * The pages: `/widget/` (and `/widget/sdk.js`) and `/dashboard/`. Their HTML and CSS live in web/static, their
 * compiled scripts in web/dist (web/README.md); both are served as files, with no build step at request time.
 * Only the page entry points are routes (and documented operations); their assets are static mounts.
 */
import path from 'node:path';
import express, { Router } from 'express';
import { ROUTER_OPTIONS } from '@pi/common';
import { packageRoot } from '../package-root';

/** The repository's web/ folder, beside services/. */
const WEB_ROOT = path.join(packageRoot(), '../../web');

/** Asset names carry no version, so browsers revalidate them (ETag) rather than mix two releases. */
const staticOptions = { index: false, maxAge: 0, etag: true, fallthrough: true } as const;

const PAGES = ['widget', 'dashboard'];

/** Where the pages' assets are mounted (entries of the public path table, proxy/route-table.ts). */
export const PAGE_ASSET_MOUNTS = PAGES.map((page) => `/${page}/assets/`);

export function pagesRouter(): Router {
  const router = Router(ROUTER_OPTIONS);
  for (const page of PAGES) {
    router.get(`/${page}/`, (_req, res) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(path.join(WEB_ROOT, 'static', page, 'index.html'));
    });
    router.use(`/${page}/assets`, express.static(path.join(WEB_ROOT, 'static', page), staticOptions));
    router.use(`/${page}/assets`, express.static(path.join(WEB_ROOT, 'dist', page), staticOptions));
  }
  router.get('/widget/sdk.js', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.sendFile(path.join(WEB_ROOT, 'dist', 'sdk', 'sdk.js'));
  });
  return router;
}

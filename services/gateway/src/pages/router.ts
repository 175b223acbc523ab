/**
 * The pages (endpoints.ts) and their assets: per page one bundled script and one stylesheet (with source
 * maps) under `assets/`. Assets carry a hash of their content in their name, so they never change under a name:
 * cached for a year (`immutable`). An unknown asset name falls through to the 404.
 */
import path from 'node:path';
import express, { Router } from 'express';
import { ROUTER_OPTIONS } from '@pi/common';
import type { GatewayContext } from '../context';
import { gatewayRouter } from '../routes/gateway-router';
import { WEB_DIST, pageEndpoints } from './endpoints';

const ASSET_OPTIONS = { index: false, immutable: true, maxAge: '365d', etag: true, fallthrough: true } as const;

const PAGES = ['widget', 'dashboard'];

/** Where the pages' assets are mounted (entries of the public path table, proxy/route-table.ts). */
export const PAGE_ASSET_MOUNTS = PAGES.map((page) => `/${page}/assets/`);

export function pagesRouter(ctx: GatewayContext): Router {
  const router = Router(ROUTER_OPTIONS);
  router.use(gatewayRouter(ctx, pageEndpoints));
  for (const page of PAGES) router.use(`/${page}/assets`, express.static(path.join(WEB_DIST, page, 'assets'), ASSET_OPTIONS));
  return router;
}

/**
 * The documentation UIs on the OpenAPI document (`GET /api/schema/`), working without internet access:
 * - `GET /api/docs/`: Swagger UI (swagger-ui-dist), initialized by our own `swagger-initializer.js`;
 * - `GET /api/redoc/`: Redoc (redoc's standalone bundle), started by its `<redoc spec-url>` element; our
 *   `redoc-offline.js` keeps it from loading the Redocly logo of its menu footer from a CDN.
 * The two pages are small HTML files of our own (services/gateway/static/docs/, no inline script); their
 * assets come from the npm packages, found with `require.resolve`, under `/api/docs/assets/…` and
 * `/api/redoc/assets/…`, only the files the pages need. Assets are cached for a year (`immutable`): the pages
 * name them with `?v=<tag>`, a hash of the package versions and our own files, so an upgrade changes the URLs.
 * The pages themselves are `no-cache`. Their Content-Security-Policy is set by path in http/security-headers.ts.
 *
 * Only the two pages are routes (they are documented operations, docs/operations.ts); the assets are `use`
 * mounts, which the route-coverage test (test/e2e/openapi/document.test.ts) rightly does not count.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import express, { RequestHandler, Router } from 'express';
import { ROUTER_OPTIONS } from '@pi/common';
import { packageRoot } from '../package-root';

export const SWAGGER_UI_PATH = '/api/docs/';
export const REDOC_PATH = '/api/redoc/';
/** Where the UIs' assets are mounted (entries of the public path table, proxy/route-table.ts). */
export const DOCS_ASSET_MOUNTS = [`${SWAGGER_UI_PATH}assets/`, `${REDOC_PATH}assets/`];

/** Of swagger-ui-dist: what the page loads, and the source maps the browser's developer tools ask for. */
const SWAGGER_UI_FILES = ['swagger-ui-bundle.js', 'swagger-ui-bundle.js.map', 'swagger-ui.css', 'swagger-ui.css.map', 'favicon-16x16.png', 'favicon-32x32.png'];
/** Of redoc/bundles (the search worker is inlined in the bundle and started from a `blob:` URL). */
const REDOC_FILES = ['redoc.standalone.js', 'redoc.standalone.js.map'];

const ASSET_OPTIONS = { index: false, redirect: false, fallthrough: true, immutable: true, maxAge: '365d' } as const;

export function docsUiRouter(): Router {
  const own = path.join(packageRoot(), 'static', 'docs');
  const swaggerUi = path.dirname(require.resolve('swagger-ui-dist/swagger-ui-bundle.js'));
  const redoc = path.dirname(require.resolve('redoc/bundles/redoc.standalone.js'));

  const ownSwaggerUi = ['swagger-initializer.js'];
  const ownRedoc = ['redoc.css', 'redoc-offline.js'];
  const contents = (names: string[]) => names.map((name) => fs.readFileSync(path.join(own, name)));
  const swaggerTag = versionTag(packageVersion(swaggerUi), ...contents(ownSwaggerUi));
  const redocTag = versionTag(packageVersion(path.dirname(redoc)), ...contents(ownRedoc));

  const router = Router(ROUTER_OPTIONS);
  router.use(`${SWAGGER_UI_PATH}assets`, onlyFiles(own, ownSwaggerUi), onlyFiles(swaggerUi, SWAGGER_UI_FILES));
  router.use(`${REDOC_PATH}assets`, onlyFiles(own, ownRedoc), onlyFiles(redoc, REDOC_FILES));
  router.get(SWAGGER_UI_PATH, page(render(path.join(own, 'swagger-ui.html'), swaggerTag)));
  router.get(REDOC_PATH, page(render(path.join(own, 'redoc.html'), redocTag)));
  return router;
}

/** `express.static` on `dir`, for the listed file names only (the packages hold demo pages we don't serve). */
function onlyFiles(dir: string, names: string[]): RequestHandler {
  const serve = express.static(dir, ASSET_OPTIONS);
  const allowed = new Set(names.map((name) => `/${name}`));
  return (req, res, next) => {
    if (allowed.has(req.path)) serve(req, res, next);
    else next();
  };
}

/**
 * The page. `/api/docs` (without the final slash) never gets here: the public path table redirects it to
 * `/api/docs/` (http/public-paths.ts), so that the page's relative asset and document URLs resolve.
 */
function page(html: string): RequestHandler {
  return (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.type('text/html; charset=utf-8').send(html);
  };
}

function render(file: string, tag: string): string {
  return fs.readFileSync(file, 'utf8').replaceAll('{{version}}', tag);
}

function versionTag(...parts: (string | Buffer)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex').slice(0, 12);
}

function packageVersion(dir: string): string {
  return (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The documentation UIs (services/gateway/src/docs/ui.ts): `/api/docs/` (Swagger UI) and `/api/redoc/` (Redoc)
 * answer our pages, their assets come from the gateway (npm packages, no CDN), and in headless Chromium
 * (support/browser.ts) both render the OpenAPI document under the gateway's CSP with no console error and no
 * request leaving the machine. Screenshots land in test-artifacts/.
 */
import { expect } from 'chai';
import { get } from '../../support/api';
import { BrowserPage, saveScreenshot, useBrowser } from '../../support/browser';
import { system } from '../../support/hooks';

const ONE_YEAR = 365 * 24 * 3600;

/** The `src`/`href` URLs of a page's `<script>` and `<link>` elements (but `data:`), resolved against the page. */
function assetUrls(html: string, pageUrl: string): string[] {
  const urls = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  return urls.filter((u) => !u.startsWith('data:')).map((u) => new URL(u, pageUrl).href);
}

function operationCount(document: { paths: Record<string, Record<string, unknown>> }): number {
  const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
  return Object.values(document.paths).reduce((n, item) => n + Object.keys(item).filter((k) => methods.has(k)).length, 0);
}

describe('Documentation UIs', () => {
  describe('pages and assets over HTTP', () => {
    for (const [path, title, scriptName] of [
      ['/api/docs/', 'Swagger UI', 'swagger-ui-bundle.js'],
      ['/api/redoc/', 'Redoc', 'redoc.standalone.js'],
    ] as const) {
      it(`${path} answers our HTML page, whose assets all answer 200 from the gateway with long cache headers`, async () => {
        const res = await get(path);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.match(/^text\/html; charset=utf-8/i);
        expect(res.headers.get('cache-control')).to.equal('no-cache');
        const html: string = res.body;
        expect(html).to.match(new RegExp(`<title>[^<]*${title}[^<]*</title>`));
        expect(html, 'no inline script').not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);
        expect(html).not.to.match(/https?:\/\//);

        const pageUrl = `${system().url}${path}`;
        const urls = assetUrls(html, pageUrl);
        expect(
          urls.some((u) => new URL(u).pathname.endsWith(`/${scriptName}`)),
          `${path} loads ${scriptName}`,
        ).to.equal(true);
        for (const url of urls) {
          expect(url.startsWith(`${pageUrl}assets/`), `${url} is under ${path}assets/`).to.equal(true);
          const asset = await fetch(url);
          expect(asset.status, url).to.equal(200);
          const type = asset.headers.get('content-type') ?? '';
          const pathname = new URL(url).pathname;
          if (pathname.endsWith('.js')) expect(type, url).to.match(/^(text|application)\/javascript/);
          else if (pathname.endsWith('.css')) expect(type, url).to.match(/^text\/css/);
          else if (pathname.endsWith('.png')) expect(type, url).to.equal('image/png');
          expect(asset.headers.get('cache-control'), url).to.equal(`public, max-age=${ONE_YEAR}, immutable`);
          expect(asset.headers.get('x-content-type-options'), url).to.equal('nosniff');
          await asset.arrayBuffer();
        }
      });
    }

    it("serves our Swagger UI initializer (on /api/schema/), not the package's Petstore one, and none of the package's other files", async () => {
      const init = await fetch(`${system().url}/api/docs/assets/swagger-initializer.js`);
      expect(init.status).to.equal(200);
      const text = await init.text();
      expect(text).to.include('../schema/');
      expect(text).not.to.include('petstore');
      for (const path of [
        '/api/docs/assets/index.html',
        '/api/docs/assets/swagger-ui.js',
        '/api/docs/assets/',
        '/api/redoc/assets/redoc.lib.js',
        '/api/redoc/assets/swagger-ui-bundle.js',
        '/api/docs/assets/redoc.standalone.js',
      ]) {
        const res = await fetch(`${system().url}${path}`, { redirect: 'manual' });
        expect(res.status, path).to.equal(404);
        await res.arrayBuffer();
      }
    });

    it('redirects /api/docs and /api/redoc (no slash) to the pages, keeping the query', async () => {
      for (const [from, to] of [
        ['/api/docs', 'docs/'],
        ['/api/redoc', 'redoc/'],
        ['/api/docs?x=1', 'docs/?x=1'],
      ]) {
        const res = await fetch(`${system().url}${from}`, { redirect: 'manual' });
        expect(res.status, from).to.equal(301);
        expect(res.headers.get('location'), from).to.equal(to);
        await res.arrayBuffer();
      }
    });
  });

  describe('in headless Chromium', function () {
    this.timeout(90_000);
    const chromium = useBrowser('Documentation UIs in headless Chromium');
    let document: { paths: Record<string, Record<string, unknown>>; info: { title: string } };

    before(async () => {
      document = (await get('/api/schema/')).body;
    });

    const expectClean = (p: BrowserPage) => {
      expect(p.blockedRequests, 'requests to hosts other than the test system').to.deep.equal([]);
      expect(p.pageErrors, 'uncaught exceptions').to.deep.equal([]);
      expect(p.consoleErrors, 'console errors').to.deep.equal([]);
      expect(p.failedRequests, 'failed requests').to.deep.equal([]);
    };

    it('/api/docs/ shows Swagger UI with every operation of the document', async () => {
      const opened = await chromium.newPage();
      const { page } = opened;
      const res = await page.goto(`${system().url}/api/docs/`, { waitUntil: 'load' });
      expect(res?.status()).to.equal(200);
      await page.waitForSelector('.swagger-ui .opblock', { timeout: 30_000 });
      await page.waitForLoadState('networkidle');
      expect(await page.title()).to.include('Swagger UI');
      expect(await page.textContent('.swagger-ui .info .title')).to.include(document.info.title);

      const paths = await page.$$eval('.swagger-ui .opblock .opblock-summary-path', (els) =>
        els.map((el) => el.getAttribute('data-path') ?? el.textContent ?? ''),
      );
      for (const path of ['/api/schema/', '/api/docs/', '/api/redoc/', '/api/token/']) expect(paths).to.include(path);
      expect(paths.length, 'one block per operation').to.equal(operationCount(document));
      expect(await page.locator('.swagger-ui .errors-wrapper').count(), 'Swagger UI reports no error').to.equal(0);

      await saveScreenshot(page, 'swagger-ui');
      expectClean(opened);
    });

    it('/api/redoc/ renders Redoc with the menu and the operations of the document', async () => {
      const opened = await chromium.newPage();
      const { page } = opened;
      const res = await page.goto(`${system().url}/api/redoc/`, { waitUntil: 'load' });
      expect(res?.status()).to.equal(200);
      // The menu lists every operation (collapsed under its tag: attached, not visible).
      await page.waitForSelector('.menu-content li[data-item-id*="operation/"]', { state: 'attached', timeout: 30_000 });
      await page.waitForSelector('[data-section-id*="operation/getOpenApiDocument"] h2', { timeout: 30_000 });
      await page.waitForLoadState('networkidle');
      expect(await page.title()).to.include('Redoc');
      expect(await page.textContent('h1')).to.include(document.info.title);

      const menu = await page.$$eval('.menu-content li[data-item-id*="operation/"]', (els) => els.map((el) => el.getAttribute('data-item-id')));
      expect(menu.length, 'one menu item per operation').to.equal(operationCount(document));
      // Each operation's section is `tag/<tag>/operation/<id>`, with an `operation/<id>` anchor inside.
      const sections = await page.$$eval('[data-section-id^="operation/"]', (els) => els.map((el) => el.getAttribute('data-section-id')));
      expect(new Set(sections).size, 'one section per operation').to.equal(operationCount(document));
      expect((await page.textContent('[data-section-id*="operation/getOpenApiDocument"] h2'))?.trim()).to.equal('The OpenAPI document');
      // The search box works: its index is built in a worker started from a blob: URL (CSP worker-src).
      await page.fill('.menu-content input[placeholder="Search..."]', 'OpenAPI document');
      await page.waitForSelector('.menu-content [data-role="search:results"] li', { timeout: 15_000 });

      await page.fill('.menu-content input[placeholder="Search..."]', '');
      await saveScreenshot(page, 'redoc');
      expectClean(opened);
    });
  });
});

/**
 * Helpers of the widget's browser suites (test/e2e/pages/widget.test.ts, embed.test.ts).
 *
 * - `startScanGateway()`: the test system's QR redirect goes to its fixed PUBLIC_BASE_URL
 *   (`http://localhost:8000`, which other suites assert), not to the test gateway. For a real scan in the
 *   browser this starts one more QR service (same database and secrets) whose PUBLIC_BASE_URL is the address
 *   of one more gateway in front of it, so `/go/<code>/` lands on a widget that answers.
 * - `serveEmbeddingPage()`: a page of "another site" (another origin) that loads sdk.js from the gateway.
 * - request recording, and the checks (`WIDGET_CHECKS`) of the screens at phone and desktop widths.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Page, Request } from 'playwright-core';
import { closeServer, createLogger, createServiceApp, listen, pathsOf } from '@pi/common';
import { qrApi, qrPublicRoutes, qrRoutes } from '@pi/qr';
import { get } from './api';
import type { PageChecks } from './browser';
import { system } from './hooks';
import { LogCapture, RunningGateway } from './system';

export interface ScanGateway {
  /** The gateway's address, which is also the QR service's PUBLIC_BASE_URL. */
  url: string;
  scanUrl(code: string): string;
  close(): Promise<void>;
}

/** A gateway whose `/go/<code>/` redirects to its own `/widget/` (see the file comment). */
export async function startScanGateway(): Promise<ScanGateway> {
  const sys = system();
  // The QR routes read PUBLIC_BASE_URL per request: it is set once the gateway's port is known.
  const config = { PUBLIC_BASE_URL: 'http://127.0.0.1:1', QR_TOKEN_SECRET: sys.qrTokenSecret };
  const ctx = { db: sys.db, config };
  const app = createServiceApp(
    { logger: createLogger('qr-scan', 'info', new LogCapture()), db: sys.db, internalJwtSecret: sys.internalJwtSecret, paths: pathsOf(qrApi) },
    qrRoutes(ctx),
    qrPublicRoutes(ctx),
  );
  const qrServer = await listen(app, 0, '127.0.0.1');
  let gateway: RunningGateway;
  try {
    gateway = await sys.startGateway({ QR_URL: `http://127.0.0.1:${(qrServer.address() as { port: number }).port}` });
  } catch (err) {
    await closeServer(qrServer, 1000);
    throw err;
  }
  config.PUBLIC_BASE_URL = gateway.url;
  return {
    url: gateway.url,
    scanUrl: (code) => `${gateway.url}/go/${code}/`,
    close: async () => {
      await gateway.close();
      await closeServer(qrServer, 1000);
    },
  };
}

export interface EmbeddingSite {
  /** `http://localhost:<port>`: another site than the gateway's `http://127.0.0.1:<port>`. */
  origin: string;
  url: string;
  close(): Promise<void>;
}

/** A page of another site that loads `<gatewayUrl>/widget/sdk.js` and has an empty `#stock` element. */
export async function serveEmbeddingPage(gatewayUrl: string): Promise<EmbeddingSite> {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>A shop embedding the inventory</title>
<script src="${gatewayUrl}/widget/sdk.js"></script></head>
<body><h1>Our shop</h1><p>Stock, live from the inventory service:</p><div id="stock"></div></body></html>`;
  // `/hand-made`: the widget in an iframe written by hand, without the SDK; the page keeps every message the
  // widget posts in `window.widgetMessages` (docs/api/widget-embedding.md).
  const handMade = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A hand-made embedding</title></head>
<body><h1>Our shop</h1><iframe id="widget" title="Inventory" src="${gatewayUrl}/widget/?embed=1" sandbox="allow-scripts allow-same-origin allow-forms" style="width:100%;height:480px;border:0"></iframe>
<script>window.widgetMessages = []; window.addEventListener('message', (e) => { if (e.source === document.getElementById('widget').contentWindow) window.widgetMessages.push(e.data); });</script>
</body></html>`;
  const server = http.createServer((req, res) => {
    if (req.url === '/' || req.url?.startsWith('/?') || req.url === '/hand-made') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(req.url === '/hand-made' ? handMade : html);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(server.address() as { port: number }).port}`;
  return {
    origin,
    url: `${origin}/`,
    close: () => closeServer(server, 1000),
  };
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  postData: string | null;
  isNavigation: boolean;
}

/** Every request of the page's context (frames included), as sent. */
export function recordRequests(page: Page): RecordedRequest[] {
  const seen: RecordedRequest[] = [];
  page.context().on('request', (req: Request) => {
    seen.push({ method: req.method(), url: req.url(), headers: req.headers(), postData: req.postData(), isNavigation: req.isNavigationRequest() });
  });
  return seen;
}

/** A redirect token for the code that expired a minute ago (signed like the QR service's). */
export function expiredToken(code: string, companyId: string): string {
  const now = Math.floor(Date.now() / 1000);
  return jwt.sign({ typ: 'qr', code, cid: companyId, iat: now - 700, exp: now - 60 }, system().qrTokenSecret, {
    algorithm: 'HS256',
    jwtid: randomUUID(),
    audience: 'pi-widget',
  });
}

/**
 * The checks of the widget's screens (support/browser.ts): at 360 px no sideways scrolling and no control cut
 * off outside the window; screenshots at test-artifacts/<name>-360.png and -1280.png, ending at 1280 px.
 * `expectLabelledControls` with these checks covers every control, rendered or not.
 */
export const WIDGET_CHECKS: PageChecks = { controlsInWindow: true, pageNoun: 'page' };

/**
 * Opens the widget at `/widget/` on `code` with the company's whole widget key in the tab's session
 * (web/src/widget/session.ts), not a scan's (a scan reaches its code's
 * product only; docs/api/scanning.md): the tab's session holds the widget key, as if the scan had handed it over.
 */
export async function openWithWidgetKey(page: Page, scan: ScanGateway, company: { apiKey: string }, code: string): Promise<void> {
  const qr = (await get(`/api/v1/widget/qr_info/?code=${code}`, { apiKey: company.apiKey })).body;
  const session = { apiKey: company.apiKey, expiresAt: new Date(Date.now() + 3600_000).toISOString(), qr };
  await page.addInitScript(`sessionStorage.setItem('pi-inventory-widget.session', ${JSON.stringify(JSON.stringify(session))})`);
  await page.goto(`${scan.url}/widget/`);
}

/** Waits until the element matching `selector` contains `text`. */
export async function waitForText(page: Page, selector: string, text: string, timeout = 10_000): Promise<void> {
  try {
    await page.waitForFunction(
      ([sel, t]) => [...(globalThis as any).document.querySelectorAll(sel)].some((el: { textContent: string | null }) => el.textContent?.includes(t)),
      [selector, text] as const,
      { timeout },
    );
  } catch {
    const shown = await page.locator(selector).allTextContents();
    throw new Error(`"${text}" never appeared in ${selector}; it shows: ${JSON.stringify(shown)}`);
  }
}

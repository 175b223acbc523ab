/**
 * Headless Chromium for the browser suites: Debian's Chromium headless shell (`apt-get install
 * chromium-headless-shell`; .ci/run installs it), driven by playwright-core (which downloads no browser of its
 * own). Without it, the suites are skipped with a loud banner, as the Redis suites are without Redis
 * (support/redis.ts). Its path and flags are tools/test/chromium.ts's, which the standalone test (tools/test)
 * launches it with too.
 *
 * The pages may reach the test system only: Chromium runs with no network beyond loopback (tools/test/chromium.ts),
 * every request to a host other than 127.0.0.1/localhost fails there and is recorded, and suites assert that
 * none happened (the UIs must work with no internet access).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Browser, BrowserContext, ConsoleMessage, Page, Request as PageRequest, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, FULL_CHROMIUM_PATH } from '@pi/tools/dist/test/chromium';
import { atProcessEnd } from './hooks';
import { skipLoudly } from './skip';

export { CHROMIUM_PATH };

/** Screenshots and other files the browser suites leave behind (git-ignored). */
export const ARTIFACTS_DIR = path.resolve(__dirname, '../../../test-artifacts');

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export const PHONE = { width: 360, height: 740 };
export const DESKTOP = { width: 1280, height: 900 };

/** The two Chromium builds the suites launch (tools/test/chromium.ts), with the Debian package of each. */
const BUILDS = {
  shell: { path: CHROMIUM_PATH, debianPackage: 'chromium-headless-shell' },
  full: { path: FULL_CHROMIUM_PATH, debianPackage: 'chromium' },
};

function chromiumAvailable(executable: string): boolean {
  try {
    fs.accessSync(executable, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * In a suite's `before` (or a test): skips it, loudly, when its Chromium is not installed: the headless shell,
 * or the full browser for what only it has.
 */
export function requireChromium(ctx: Mocha.Context, what: string, build: keyof typeof BUILDS = 'shell'): void {
  const { path: executable, debianPackage } = BUILDS[build];
  if (!chromiumAvailable(executable)) skipLoudly(ctx, `CHROMIUM IS NOT INSTALLED at ${executable} (apt-get install ${debianPackage}): SKIPPING "${what}"`);
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/**
 * One Chromium per test process, launched when a suite first asks and kept for the process's later suites,
 * as the test system is (support/hooks.ts): a launch costs about 0.8 s of CPU and half a second, and every
 * page gets a context of its own (`openPage`), so suites share no cookies, storage or permissions.
 * A browser that went away (crashed, or closed by a test) is launched again.
 */
let shared: Promise<Browser> | undefined;
/** The shared browser once launched, or undefined (none yet, or its launch failed). */
const launched = async () => shared?.catch(() => undefined);

async function sharedBrowser(): Promise<Browser> {
  const current = await launched();
  if (current?.isConnected()) return current;
  // The first launch of the process also arranges the close (the one process of `TEST_JOBS=1`).
  if (!shared) atProcessEnd(closeSharedBrowser);
  shared = launchBrowser();
  return shared;
}

async function closeSharedBrowser(): Promise<void> {
  const current = await launched();
  shared = undefined;
  await current?.close();
}

/**
 * Chromium for the suite this is called in (the process's shared one, the suite skipped, loudly, without it).
 * Pages from `newPage()` are closed after each test.
 */
export function useBrowser(suite: string): { newPage: () => Promise<BrowserPage> } {
  let browser: Browser | undefined;
  const open: BrowserPage[] = [];
  before(async function () {
    requireChromium(this, suite);
    this.timeout(60_000);
    browser = await sharedBrowser();
  });
  afterEach(async () => {
    for (const bp of open.splice(0)) await bp.close();
  });
  return {
    async newPage() {
      const bp = await openPage(browser!);
      open.push(bp);
      return bp;
    },
  };
}

/** A page in a fresh context, with what went wrong on it collected for the test to assert on. */
export interface BrowserPage {
  page: Page;
  context: BrowserContext;
  /** `console.error` messages, including the browser's own (failed loads, CSP violations). */
  consoleErrors: string[];
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  /** Requests to any host but 127.0.0.1/localhost: refused by Chromium (tools/test/chromium.ts). */
  blockedRequests: string[];
  /** Requests to the test system that failed at the network level. */
  failedRequests: string[];
  close(): Promise<void>;
}

/** A request to the network beyond the test system (http, https, ws, wss to a host other than loopback). */
function offMachine(href: string): boolean {
  const url = new URL(href);
  return ['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol) && !LOCAL_HOSTS.has(url.hostname);
}

export async function openPage(browser: Browser): Promise<BrowserPage> {
  const context = await browser.newContext({ viewport: DESKTOP });
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const blockedRequests: string[] = [];
  const failedRequests: string[] = [];
  // On the context, so that every page, popup and worker of it is covered. Chromium itself refuses them.
  context.on('requestfailed', (req) => {
    if (offMachine(req.url())) blockedRequests.push(req.url());
  });
  const page = await context.newPage();
  page.on('console', (msg: ConsoleMessage) => {
    if (msg.type() === 'error') consoleErrors.push(`${msg.text()}${msg.location().url ? ` (${msg.location().url})` : ''}`);
  });
  page.on('pageerror', (err) => pageErrors.push(err.stack ?? err.message));
  page.on('websocket', (socket) => {
    if (offMachine(socket.url())) blockedRequests.push(socket.url());
  });
  // A request the page's own navigation cut short (a background read still in flight when the test opens the
  // next page) is not a failure of the page; any other failed request is. A request is cut by a navigation
  // that started after it, or by one already under way when it started (the old document still runs its
  // scripts until the new one commits).
  let navigations = 0;
  // Documents committed, never more than the navigations asked for: a hash change commits nothing new.
  let committed = 0;
  const startedAt = new WeakMap<PageRequest, { navigations: number; duringNavigation: boolean }>();
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame() && committed < navigations) committed++;
  });
  page.on('request', (req) => {
    // Counted when the navigation starts, which is before it cancels the old document's requests.
    if (req.isNavigationRequest() && req.frame() === page.mainFrame()) navigations++;
    else startedAt.set(req, { navigations, duringNavigation: navigations > committed });
  });
  page.on('requestfailed', (req) => {
    const started = startedAt.get(req);
    const cutByNavigation =
      req.failure()?.errorText === 'net::ERR_ABORTED' && started !== undefined && (navigations > started.navigations || started.duringNavigation);
    if (!offMachine(req.url()) && !cutByNavigation) failedRequests.push(`${req.method()} ${req.url()}: ${req.failure()?.errorText}`);
  });
  return { page, context, consoleErrors, pageErrors, blockedRequests, failedRequests, close: () => context.close() };
}

/**
 * Screenshots of the page at 360 px and at 1280 px (test-artifacts/<name>-360.png and -1280.png), with
 * `checkPhone` run at 360 px; ends at 1280 px.
 */
export async function screenshotAtBothWidths(page: Page, name: string, checkPhone: () => Promise<void>): Promise<void> {
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    await page.waitForTimeout(150);
    if (size === PHONE) await checkPhone();
    await saveScreenshot(page, `${name}-${size.width}`);
  }
}

/** A screenshot of the viewport under test-artifacts/ (a full page of either UI is tens of thousands of pixels tall); answers the file's path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

// ---- the checks each UI's screens get -----------------------------------------------------------------------

/** What a UI's screens are checked for, and where their screenshots go (each UI's helpers hold its own). */
export interface PageChecks {
  /** Prefix of the screenshot names under test-artifacts/ (say `dashboard/`). */
  folder?: string;
  /** No sideways scrolling also means no link or control cut off outside the window (in a row of tabs, say). */
  controlsInWindow?: boolean;
  /** Only form controls that are rendered need a label (not those of a collapsed panel, say). */
  visibleControlsOnly?: boolean;
  /** `screenshotChecked` also checks the labels at 360 px. */
  labelsAtPhone?: boolean;
  /** `screenshotChecked` ends at the viewport the page had (otherwise at 1280 px). */
  restoreViewport?: boolean;
  /** How the sideways-scrolling message names the page: `<name>: page is …` or `<name>: the page is …`. */
  pageNoun: 'page' | 'the page';
}

/** Nothing wider than the window: a 360 px phone never scrolls sideways (nor, with `controlsInWindow`, is a control cut off). */
export async function expectNoHorizontalScroll(page: Page, name: string, checks: PageChecks): Promise<void> {
  const { scroll, client } = await page.evaluate<{ scroll: number; client: number }>(
    '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
  );
  expect(scroll, `${name}: ${checks.pageNoun} is ${scroll}px wide in a ${client}px window`).to.be.at.most(client);
  if (!checks.controlsInWindow) return;
  // Nor is any link or control cut off inside a scrolling box (say, a row of tabs).
  const outside = await page.evaluate(`[...document.querySelectorAll('a, button, input, select, textarea, label')]
    .filter((el) => el.getClientRects().length > 0)
    .filter((el) => { const r = el.getBoundingClientRect(); return r.right > document.documentElement.clientWidth + 0.5 || r.left < -0.5; })
    .map((el) => el.outerHTML.slice(0, 120))`);
  expect(outside, `${name}: controls outside the ${client}px window`).to.deep.equal([]);
}

/** Every form control of the page (every rendered one, with `visibleControlsOnly`) has a label: a `<label for>`, or aria-label/labelledby. */
export async function expectLabelledControls(page: Page, name: string, checks: PageChecks): Promise<void> {
  const unlabelled = await page.evaluate<string[]>(`[...document.querySelectorAll('input, select, textarea')]
    .filter((el) => el.type !== 'hidden' && (${checks.visibleControlsOnly ? 'el.getClientRects().length > 0' : 'true'}))
    .filter((el) => (el.labels?.length ?? 0) === 0 && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
    .map((el) => el.outerHTML)`);
  expect(unlabelled, `${name}: form controls without a label`).to.deep.equal([]);
}

/**
 * Screenshots of the page at 360 px, checked there (no sideways scrolling; labelled controls with
 * `labelsAtPhone`), and at 1280 px: test-artifacts/<folder><name>-360.png and -1280.png.
 */
export async function screenshotChecked(page: Page, name: string, checks: PageChecks): Promise<void> {
  const start = page.viewportSize() ?? DESKTOP;
  await screenshotAtBothWidths(page, `${checks.folder ?? ''}${name}`, async () => {
    await expectNoHorizontalScroll(page, name, checks);
    if (checks.labelsAtPhone) await expectLabelledControls(page, name, checks);
  });
  if (checks.restoreViewport) await page.setViewportSize(start);
}

/** Which of what went wrong on a page a suite counts as a problem. */
export interface ProblemFilter {
  /** Console errors the suite causes on purpose (say, the browser's line for each 4xx it provokes). */
  expectedConsole: RegExp;
  /** Whether requests that failed at the network level count. */
  failedRequests: boolean;
  /** Prefix each problem with its kind (`page error: `, `console: `, ...). */
  labelled: boolean;
}

/** What the browser complained about on the page, minus what `filter` expects. */
export function pageProblems(bp: BrowserPage, filter: ProblemFilter): string[] {
  const kind = (label: string) => (text: string) => (filter.labelled ? `${label}${text}` : text);
  return [
    ...bp.pageErrors.map(kind('page error: ')),
    ...bp.consoleErrors.filter((e) => !filter.expectedConsole.test(e)).map(kind('console: ')),
    ...bp.blockedRequests.map(kind('request off the service: ')),
    ...(filter.failedRequests ? bp.failedRequests.map(kind('failed request: ')) : []),
  ];
}

/**
 * Bookings whose outcome is unknown, in headless Chromium: the widget and the dashboard send an
 * `Idempotency-Key` with every booking and, when the answer is 502/503/504 or the network failed, send the same
 * booking again with the SAME key (a few times, with growing pauses, saying so on the page). The booking
 * requests are routed through playwright: an attempt may reach the service and book, and its answer is then
 * replaced by the gateway's 504 `upstream_timeout` (or 503 `outcome_unknown`), or the attempt is cut off
 * before it leaves the browser. Whatever happens, the action books exactly once. The dashboard's imports
 * (products, locations, opening stock) and new locations (dashboard and widget) are retried the same way, and
 * happen once.
 */
import { expect } from 'chai';
import type { Page, Route } from 'playwright-core';
import { get } from '../../support/api';
import { BrowserPage, pageProblems, useBrowser } from '../../support/browser';
import { addStock, buildCompany, buildLocation, buildProduct, configuredCode, unique, type TestCompany } from '../../support/builders';
import { navigate, openPanel, signInWithKeyboard } from '../../support/dashboard-page';
import { ScanGateway, openWithWidgetKey, startScanGateway, waitForText } from '../../support/pages';
import { query } from '../../support/sql';
import { balanceOf } from '../../support/stock';
import { eventually } from '../../support/wait';

const kindsOf = async (productId: string) =>
  (await query<{ kind: string }>('SELECT kind FROM stock_movements WHERE product_id = $1 ORDER BY seq', [productId])).map((m) => m.kind);

/** The gateway's answers for a booking whose outcome it cannot know (docs/api/deadlines-and-retries.md "Gateway failures"). */
const UPSTREAM_TIMEOUT = {
  status: 504,
  contentType: 'application/json',
  body: JSON.stringify({ error: 'The service did not answer in time: the outcome is unknown.', code: 'upstream_timeout', details: {}, request_id: 'req-504' }),
};
const OUTCOME_UNKNOWN = {
  status: 503,
  contentType: 'application/json',
  body: JSON.stringify({ error: 'The outcome of the request is unknown.', code: 'outcome_unknown', details: {}, request_id: 'req-503' }),
};

interface Attempt {
  key: string | undefined;
  /** What the service answered, when the attempt reached it. */
  reached?: number;
}

/**
 * Routes the requests matching `pattern` through `plan`, one step per attempt: `booked-then-<answer>` lets the
 * service book and answers `<answer>` instead, `answer` answers without reaching it, `cut` fails at the
 * network level, `pass` goes through.
 */
type Step =
  { kind: 'reached-then'; answer: typeof UPSTREAM_TIMEOUT } | { kind: 'answer'; answer: typeof UPSTREAM_TIMEOUT } | { kind: 'cut' } | { kind: 'pass' };

async function routeAttempts(page: Page, pattern: string | RegExp, plan: Step[]): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  await page.route(pattern, async (route: Route) => {
    const attempt: Attempt = { key: route.request().headers()['idempotency-key'] };
    attempts.push(attempt);
    const step = plan[attempts.length - 1] ?? { kind: 'pass' };
    if (step.kind === 'cut') return route.abort('connectionreset');
    if (step.kind === 'answer') return route.fulfill(step.answer);
    const res = await route.fetch();
    attempt.reached = res.status();
    if (step.kind === 'reached-then') return route.fulfill(step.answer);
    return route.fulfill({ response: res });
  });
  return attempts;
}

/** Records every text that `selector` shows from now on (a retry notice is on screen for a second or two). */
async function recordTexts(page: Page, selector: string): Promise<() => Promise<string[]>> {
  await page.evaluate(`(() => {
    const seen = (window.__seenTexts = []);
    const look = () => { for (const el of document.querySelectorAll(${JSON.stringify(selector)})) { const t = el.textContent.trim(); if (t && !seen.includes(t)) seen.push(t); } };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  })()`);
  return () => page.evaluate<string[]>('window.__seenTexts');
}

/** Page problems, minus the browser's lines for the answers and cut connections the test causes. */
const problems = (bp: BrowserPage) =>
  pageProblems(bp, {
    expectedConsole: /Failed to load resource: (the server responded with a status of (40\d|50[234])|net::ERR_CONNECTION_RESET)/,
    failedRequests: false,
    labelled: true,
  });

describe('Pages: bookings whose outcome is unknown are retried with the same Idempotency-Key', function () {
  this.timeout(90_000);
  const { newPage } = useBrowser('booking retries');
  let scan: ScanGateway;

  before(async () => {
    scan = await startScanGateway();
  });

  after(async () => {
    await scan?.close();
  });

  async function widgetOnProduct() {
    const company = await buildCompany();
    const location = await buildLocation(company, 'Main store');
    const product = await buildProduct(company, { name: 'Blue widget', sku: unique('BW') });
    await addStock(company, product.id, location.id, 10);
    const code = await configuredCode(company, product.id);
    const bp = await newPage();
    await bp.page.goto(scan.scanUrl(code));
    await bp.page.getByRole('heading', { level: 2, name: product.name }).waitFor();
    await bp.page.locator('.booking .segment label', { hasText: /^Subtract$/ }).click();
    await bp.page.getByLabel('Quantity (pcs)').fill('2');
    return { company, location, product, bp, page: bp.page };
  }

  /** The dashboard's Import & export screen, signed in as the company's admin, with `content` pasted in the import form `label` and its dry run unticked. */
  async function importFormWith(company: TestCompany, label: string, content: string) {
    const bp = await newPage();
    await signInWithKeyboard(bp.page, company.admin.username, company.admin.password);
    await navigate(bp.page, 'Import & export');
    const form = bp.page.getByRole('form', { name: label });
    await form.getByLabel('Or paste the content').fill(content);
    await form.getByLabel('Dry run: check only, import nothing').uncheck();
    return { bp, page: bp.page, form };
  }

  it('widget: a subtraction booked but answered 504, then cut off, is sent a third time with the same key and books once; the page says it retries', async () => {
    const { product, location, bp, page } = await widgetOnProduct();
    const attempts = await routeAttempts(page, '**/api/v1/widget/*/transaction/', [
      { kind: 'reached-then', answer: UPSTREAM_TIMEOUT },
      { kind: 'cut' },
      { kind: 'pass' },
    ]);
    const replayed: string[] = [];
    page.on('response', (res) => {
      if (res.url().endsWith('/transaction/')) replayed.push(res.headers()['idempotent-replayed'] ?? 'no');
    });
    const seen = await recordTexts(page, '.booking-notice, .booking button[type="submit"]');

    await page.getByRole('button', { name: 'Subtract stock' }).click();
    await waitForText(page, '.booking button[type="submit"]', 'Retrying (2 of 4)…');
    // Another submit while it retries (the button is disabled; the form can still be submitted): ignored.
    await page.evaluate(`document.querySelector('.booking-form').requestSubmit()`);
    await waitForText(page, '.booking-notice .notice-ok', 'New stock: 8 pcs', 20_000);

    expect(attempts.map((a) => a.reached)).to.deep.equal([200, undefined, 200]);
    expect(attempts[0].key).to.match(/^widget-[0-9a-f]{32}$/);
    expect(attempts.map((a) => a.key)).to.deep.equal([attempts[0].key, attempts[0].key, attempts[0].key]);
    expect(replayed, 'the third attempt got the first answer again').to.deep.equal(['no', 'true']);
    expect(await balanceOf(product.id, location.id)).to.equal(8);
    expect(await kindsOf(product.id)).to.deep.equal(['ADD', 'SUBTRACT']);
    expect(await page.locator('.booking-notice').textContent()).to.equal('Subtracted 2 pcs at Main store. New stock: 8 pcs (Main store: 8 pcs).');
    expect(await seen()).to.include.members([
      'Retrying (2 of 4)…',
      'The service took too long to answer: trying again in 1 s (attempt 2 of 4). It is the same booking, so it cannot be booked twice.',
      'Retrying (3 of 4)…',
      'The connection failed: trying again in 2 s (attempt 3 of 4). It is the same booking, so it cannot be booked twice.',
    ]);
    expect(problems(bp)).to.deep.equal([]);
  });

  it('widget: when every attempt fails the outcome is said to be unknown, and booking again sends the same key: once booked, never twice', async () => {
    const { product, location, bp, page } = await widgetOnProduct();
    const plan: Step[] = [
      { kind: 'reached-then', answer: UPSTREAM_TIMEOUT },
      { kind: 'answer', answer: OUTCOME_UNKNOWN },
      { kind: 'answer', answer: OUTCOME_UNKNOWN },
      { kind: 'answer', answer: OUTCOME_UNKNOWN },
    ];
    const attempts = await routeAttempts(page, '**/api/v1/widget/*/transaction/', plan);

    await page.getByRole('button', { name: 'Subtract stock' }).click();
    await waitForText(page, '.booking-notice .notice-error', 'It is not known whether the booking was made.', 20_000);
    expect(await page.locator('.booking-notice').textContent()).to.equal(
      'The outcome of the request is unknown. It is not known whether the booking was made. Send it again unchanged: it carries the same key, so it is booked once at most. (Request req-503)',
    );
    expect(attempts).to.have.length(4);
    expect(await balanceOf(product.id, location.id), 'the first attempt did book').to.equal(8);

    // The person books again: the same key, so the service answers the first booking instead of booking twice.
    await waitForText(page, '.booking button[type="submit"]', 'Subtract stock');
    await page.getByRole('button', { name: 'Subtract stock' }).click();
    await waitForText(page, '.booking-notice .notice-ok', 'New stock: 8 pcs');
    expect(attempts).to.have.length(5);
    expect(new Set(attempts.map((a) => a.key)).size, 'one key for the action').to.equal(1);
    expect(await balanceOf(product.id, location.id)).to.equal(8);
    expect(await kindsOf(product.id)).to.deep.equal(['ADD', 'SUBTRACT']);

    // A new action afterwards gets a new key.
    await page.getByLabel('Quantity (pcs)').fill('1');
    await page.getByRole('button', { name: 'Subtract stock' }).click();
    await waitForText(page, '.booking-notice .notice-ok', 'New stock: 7 pcs');
    expect(attempts).to.have.length(6);
    expect(attempts[5].key).to.not.equal(attempts[0].key);
    expect(problems(bp)).to.deep.equal([]);
  });

  it('dashboard: a stock booking (POST /api/v1/movements/) booked but answered 503, then cut off, is retried with the same key and books once', async () => {
    const company = await buildCompany();
    const location = await buildLocation(company, unique('Dock'));
    const product = await buildProduct(company, { name: 'Dashboard nut', sku: unique('NUT') });
    const bp = await newPage();
    const { page } = bp;
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await navigate(page, 'Stock');
    const form = page.getByRole('form', { name: 'Book stock' });
    await form.getByLabel('Booking').selectOption('add');
    await form.getByLabel('Product').selectOption(product.id);
    await form.getByLabel('Location', { exact: true }).selectOption(location.id);
    await form.getByLabel('Quantity').fill('5');
    const attempts = await routeAttempts(page, '**/api/v1/movements/', [{ kind: 'reached-then', answer: OUTCOME_UNKNOWN }, { kind: 'cut' }, { kind: 'pass' }]);
    const seen = await recordTexts(page, 'form[aria-label="Book stock"] .form-message, form[aria-label="Book stock"] button[type="submit"]');

    await form.getByRole('button', { name: 'Book', exact: true }).click();
    await waitForText(page, '.notices', 'total now 5 pcs', 20_000);

    const posts = attempts.filter((a) => a.key !== undefined);
    expect(posts.map((a) => a.reached)).to.deep.equal([201, undefined, 201]);
    expect(posts[0].key).to.match(/^dashboard-[0-9a-f]{32}$/);
    expect(new Set(posts.map((a) => a.key)).size).to.equal(1);
    expect(await kindsOf(product.id)).to.deep.equal(['ADD']);
    expect(await balanceOf(product.id, location.id)).to.equal(5);
    const ledger = (await get(`/api/v1/movements/?product_id=${product.id}`, { token: company.token })).body.results;
    expect(ledger).to.have.length(1);
    expect(await seen()).to.include.members([
      'Retrying (2 of 4)…',
      'The service is unavailable: trying again in 1 s (attempt 2 of 4). It is the same booking, so it cannot be booked twice.',
      'Retrying (3 of 4)…',
      'The connection failed: trying again in 2 s (attempt 3 of 4). It is the same booking, so it cannot be booked twice.',
    ]);
    // The retry message is gone once it booked; the button is back.
    expect(await form.locator('.form-message').count()).to.equal(0);
    expect(await form.getByRole('button', { name: 'Book', exact: true }).isEnabled()).to.equal(true);
    expect(problems(bp)).to.deep.equal([]);
  });

  it('dashboard: an opening-stock import booked but answered 503, then cut off, is retried with the same key and books once; the same file imported again books again', async () => {
    const company = await buildCompany();
    const location = await buildLocation(company, unique('Dock'));
    const product = await buildProduct(company, { name: 'Imported nut', sku: unique('NUT') });
    const content = `sku,location,quantity\n${product.sku},${location.name},4\n${product.sku},${location.name},3`;
    const { bp, page, form } = await importFormWith(company, 'Import opening stock', content);
    const attempts = await routeAttempts(page, /\/api\/v1\/stock\/import\//, [
      { kind: 'reached-then', answer: OUTCOME_UNKNOWN },
      { kind: 'cut' },
      { kind: 'pass' },
    ]);
    const seen = await recordTexts(page, 'form[aria-label="Import opening stock"] button[type="submit"]');

    await form.getByRole('button', { name: 'Import' }).click();
    await page.locator('.import-outcome', { hasText: '2 stock row(s) imported.' }).waitFor({ timeout: 20_000 });
    expect(attempts.map((a) => a.reached)).to.deep.equal([201, undefined, 201]);
    expect(attempts[0].key).to.match(/^dashboard-[0-9a-f]{32}$/);
    expect(new Set(attempts.map((a) => a.key)).size).to.equal(1);
    expect(await balanceOf(product.id, location.id)).to.equal(7);
    expect(await seen()).to.include.members(['Retrying (2 of 4)…', 'Retrying (3 of 4)…']);

    // A second delivery of the same goods is a new import: a new key, booked again.
    await form.getByRole('button', { name: 'Import' }).click();
    await eventually(async () => (await balanceOf(product.id, location.id)) === 14, 'the second import to book', 20_000);
    expect(attempts).to.have.length(4);
    expect(attempts[3].key).to.not.equal(attempts[0].key);
    expect(await kindsOf(product.id)).to.deep.equal(['ADD', 'ADD', 'ADD', 'ADD']);
    expect(problems(bp)).to.deep.equal([]);
  });

  it('dashboard: a new location created but answered 503, then cut off, is retried with the same key and created once', async () => {
    const company = await buildCompany();
    const name = unique('Annex');
    const bp = await newPage();
    const { page } = bp;
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await navigate(page, 'Locations');
    const form = await openPanel(page, 'New location');
    await form.getByLabel('Name').fill(name);
    const attempts = await routeAttempts(page, /\/api\/v1\/locations\/$/, [
      { kind: 'reached-then', answer: OUTCOME_UNKNOWN },
      { kind: 'cut' },
      { kind: 'pass' },
    ]);
    const seen = await recordTexts(page, 'form[aria-label="New location"] .form-message');

    await form.getByRole('button', { name: 'Create location' }).click();
    await waitForText(page, '.notices', `Location ${name} created.`, 20_000);
    const posts = attempts.filter((a) => a.key !== undefined);
    expect(posts.map((a) => a.reached)).to.deep.equal([201, undefined, 201]);
    expect(new Set(posts.map((a) => a.key)).size).to.equal(1);
    expect(await seen()).to.include(
      'The service is unavailable: trying again in 1 s (attempt 2 of 4). It is the same location, so it cannot be created twice.',
    );
    expect(await query('SELECT id FROM locations WHERE company_id = $1 AND name = $2', [company.id, name])).to.have.length(1);
    expect(problems(bp)).to.deep.equal([]);
  });

  it('dashboard: a new work order (numbered by the company) created but answered 504 is retried with the same key and created once', async () => {
    const company = await buildCompany();
    const bp = await newPage();
    const { page } = bp;
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await navigate(page, 'Work orders');
    const form = await openPanel(page, 'New work order');
    await form.getByLabel('Title').fill('Paint the van');
    const attempts = await routeAttempts(page, /\/api\/v1\/work-orders\/$/, [{ kind: 'reached-then', answer: UPSTREAM_TIMEOUT }, { kind: 'pass' }]);
    const seen = await recordTexts(page, 'form[aria-label="New work order"] .form-message');

    await form.getByRole('button', { name: 'Create work order' }).click();
    // Without the key the retry would have numbered a second order, WO-0002.
    await waitForText(page, '.notices', 'Work order WO-0001 created.', 20_000);
    const posts = attempts.filter((a) => a.key !== undefined);
    expect(posts.map((a) => a.reached)).to.deep.equal([201, 201]);
    expect(posts[1].key).to.equal(posts[0].key);
    expect(await seen()).to.include(
      'The service took too long to answer: trying again in 1 s (attempt 2 of 4). It is the same work order, so it cannot be created twice.',
    );
    expect((await query<{ number: string }>('SELECT number FROM work_orders WHERE company_id = $1', [company.id])).map((o) => o.number)).to.deep.equal([
      'WO-0001',
    ]);
    expect(problems(bp)).to.deep.equal([]);
  });

  it('widget: a location created but answered 504 is retried with the same key and created once; the form says it retries', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { name: 'Blue widget', sku: unique('BW') });
    const code = await configuredCode(company, product.id);
    const bp = await newPage();
    const { page } = bp;
    await openWithWidgetKey(page, scan, company, code);
    await page.getByRole('heading', { level: 2, name: product.name }).waitFor();
    await page.getByRole('link', { name: 'Locations', exact: true }).click();
    await page.getByRole('heading', { level: 2, name: 'Locations' }).waitFor();
    const name = unique('Van');
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Type', { exact: true }).selectOption('VEHICLE');
    const attempts = await routeAttempts(page, '**/api/v1/widget/create_location/', [{ kind: 'reached-then', answer: UPSTREAM_TIMEOUT }, { kind: 'pass' }]);
    const seen = await recordTexts(page, '.form-notice');

    await page.getByRole('button', { name: 'Create location' }).click();
    await waitForText(page, '.form-notice', `Location ${name} created.`, 20_000);
    expect(attempts.map((a) => a.reached)).to.deep.equal([201, 201]);
    expect(attempts[0].key).to.match(/^widget-[0-9a-f]{32}$/);
    expect(attempts[1].key).to.equal(attempts[0].key);
    expect(await seen()).to.include(
      'The service took too long to answer: trying again in 1 s (attempt 2 of 4). It is the same location, so it cannot be created twice.',
    );
    expect(await query('SELECT id FROM locations WHERE company_id = $1 AND name = $2', [company.id, name])).to.have.length(1);
    expect(problems(bp)).to.deep.equal([]);
  });

  it('dashboard: a product import that went through but answered 504 is retried with the same key and creates its product once', async () => {
    const company = await buildCompany();
    const sku = unique('IMP');
    const { bp, page, form } = await importFormWith(company, 'Import products', `sku,name,profile,engine_type\n${sku},Imported bolt,STANDARD,counter`);
    const attempts = await routeAttempts(page, /\/api\/v1\/product-models\/import\//, [{ kind: 'reached-then', answer: UPSTREAM_TIMEOUT }, { kind: 'pass' }]);
    const seen = await recordTexts(page, 'form[aria-label="Import products"] .form-message');

    await form.getByRole('button', { name: 'Import' }).click();
    await page.locator('.import-outcome', { hasText: '1 product(s) imported.' }).waitFor({ timeout: 20_000 });
    // The retry reached the service and got the first import's answer: without the key it would be 400 (SKU taken).
    expect(attempts.map((a) => a.reached)).to.deep.equal([201, 201]);
    expect(attempts[0].key).to.match(/^dashboard-[0-9a-f]{32}$/);
    expect(attempts[1].key).to.equal(attempts[0].key);
    expect(await seen()).to.include(
      'The service took too long to answer: trying again in 1 s (attempt 2 of 4). It is the same import, so it cannot be imported twice.',
    );
    expect(await query('SELECT sku FROM product_models WHERE company_id = $1 AND sku = $2', [company.id, sku])).to.have.length(1);
    expect(problems(bp)).to.deep.equal([]);
  });

  it('dashboard: a location import whose outcome stays unknown says so, and sent again unchanged creates its locations once', async () => {
    const company = await buildCompany();
    const name = unique('Annex');
    const { bp, page, form } = await importFormWith(company, 'Import locations', `name,type,parent\n${name},WAREHOUSE,\n${name} shelf,SHELF,${name}`);
    const unknown = { kind: 'answer' as const, answer: OUTCOME_UNKNOWN };
    const attempts = await routeAttempts(page, /\/api\/v1\/locations\/import\//, [
      { kind: 'reached-then', answer: OUTCOME_UNKNOWN },
      unknown,
      unknown,
      unknown,
    ]);

    await form.getByRole('button', { name: 'Import' }).click();
    await waitForText(page, 'form[aria-label="Import locations"] .form-errors', 'It is not known whether the import was made.', 30_000);
    expect(await form.locator('.form-errors').innerText()).to.include('Send it again unchanged: it carries the same key, so it is imported once at most.');
    expect(attempts).to.have.length(4);

    // Sent again unchanged: the same key, so the service answers the first import instead of creating it twice.
    await form.getByRole('button', { name: 'Import' }).click();
    await page.locator('.import-outcome', { hasText: '2 location(s) imported.' }).waitFor({ timeout: 20_000 });
    expect(attempts.map((a) => a.reached)).to.deep.equal([201, undefined, undefined, undefined, 201]);
    expect(new Set(attempts.map((a) => a.key)).size).to.equal(1);
    const created = await query<{ name: string }>('SELECT name FROM locations WHERE company_id = $1 AND name LIKE $2 ORDER BY name', [company.id, `${name}%`]);
    expect(created.map((l) => l.name)).to.deep.equal([name, `${name} shelf`]);
    expect(problems(bp)).to.deep.equal([]);
  });
});

/**
 * The dashboard's overview, its dark scheme, messages that are seen and names instead of ids
 * (docs/api/overview-and-appearance.md), in headless Chromium against the test system: the overview's numbers
 * and the filtered lists its links open at desktop and phone widths; computed colours under
 * `prefers-color-scheme: dark` in the dashboard and the widget; an error brought into view with the focus, in
 * words for people; no UUID in the tables people read.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { checkRules, loadMonitorSettings } from '@pi/monitor';
import { get, post } from '../../support/api';
import { BrowserPage, DESKTOP, PHONE, saveScreenshot, screenshotChecked, useBrowser } from '../../support/browser';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct, unique } from '../../support/builders';
import { DASHBOARD_CHECKS, confirm, fieldError, goTo, screenHeading, settled, signInWithKeyboard, unexpectedProblems } from '../../support/dashboard-page';
import { system, testDatabaseUrl } from '../../support/hooks';

const monitorSettings = () =>
  loadMonitorSettings({ NODE_ENV: 'test', SECRET_ENCRYPTION_KEY: system().secretEncryptionKey, ALLOW_LOOPBACK_WEBHOOKS: 'true', EMAIL_BACKEND: 'console' });

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** `YYYY-MM-DD` `days` from today (UTC: the test's batches are days away from any midnight question). */
const dateIn = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** The rows of the screen's table, as their visible text. */
const rowTexts = (page: Page) => page.locator('table.data tbody tr').allInnerTexts();

/** The count a block of the overview links with. */
async function blockCount(page: Page, title: string): Promise<number> {
  const link = page.locator('section.overview-block', { has: page.getByRole('heading', { name: title }) }).locator('.overview-count a');
  return Number(await link.getAttribute('data-count'));
}

/** Follows the count link of a block of the overview; waits for the list it opens. */
async function openBlock(page: Page, title: string, heading: string): Promise<void> {
  await page
    .locator('section.overview-block', { has: page.getByRole('heading', { name: title }) })
    .locator('.overview-count a')
    .click();
  await screenHeading(page, heading).waitFor();
  await settled(page);
}

// ---- colours ------------------------------------------------------------------------------------------------

type Rgb = [number, number, number];

function parseColor(css: string): Rgb {
  const m = css.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)/);
  if (!m) throw new Error(`not an rgb colour: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** WCAG 2 contrast ratio of two colours. */
function contrast(a: Rgb, b: Rgb): number {
  const lum = ([r, g, b2]: Rgb) => {
    const c = [r, g, b2].map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const [l1, l2] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (l1 + 0.05) / (l2 + 0.05);
}

/** The computed text and background colour of the first element matching `selector` (background: the nearest set one). */
async function colorsOf(page: Page, selector: string): Promise<{ fg: Rgb; bg: Rgb }> {
  const [fg, bg] = await page
    .locator(selector)
    .first()
    .evaluate((el: any) => {
      const win = el.ownerDocument.defaultView;
      let node = el;
      let bg = 'rgba(0, 0, 0, 0)';
      while (node && node.nodeType === 1) {
        const c = win.getComputedStyle(node).backgroundColor;
        if (c && !/rgba\(0, 0, 0, 0\)|transparent/.test(c)) {
          bg = c;
          break;
        }
        node = node.parentElement;
      }
      return [win.getComputedStyle(el).color, bg];
    });
  return { fg: parseColor(fg), bg: parseColor(bg) };
}

describe('dashboard overview, dark scheme, seen messages, names (browser)', function () {
  this.timeout(240_000);
  const chromium = useBrowser('dashboard overview (browser)');
  let bp: BrowserPage;
  let company: TestCompany;
  let low: { id: string; sku: string; name: string };
  let soon: string;
  let later: string;

  before(async () => {
    company = await buildCompany();
    const location = await buildLocation(company, 'Central warehouse');
    low = await buildProduct(company, { sku: unique('LOW'), name: 'Hex nut M8', engine_config: { engine_type: 'counter', min_stock: 10 } });
    const plenty = await buildProduct(company, { sku: unique('OK'), name: 'Washer 8 mm', engine_config: { engine_type: 'counter', min_stock: 5 } });
    const glue = await buildProduct(company, { profile: 'BATCH', sku: unique('GLUE'), name: 'Glue 50 ml' });
    soon = unique('SOON');
    later = unique('LATER');
    await addStock(company, low.id, location.id, 3);
    await addStock(company, plenty.id, location.id, 20);
    await addStock(company, glue.id, location.id, 5, { batch: { code: soon, expiration_date: dateIn(3) } });
    await addStock(company, glue.id, location.id, 7, { batch: { code: later, expiration_date: dateIn(60) } });
    // A batch expiring in 3 days opens a CRITICAL DATE_OFFSET event; the product below its minimum a WARNING one.
    const rule = await post(
      '/api/v1/monitoring-rules/',
      {
        product_id: glue.id,
        trigger_type: 'DATE_OFFSET',
        condition_config: { date_field: 'expiration_date', days_offset: 30 },
        severity: 'CRITICAL',
        name: 'Glue expiry',
      },
      { token: company.token },
    );
    expect(rule.status, JSON.stringify(rule.body)).to.equal(201);
    const run = await checkRules(system().db.sequelize, testDatabaseUrl(), monitorSettings(), { companyId: company.id });
    expect(run.events_opened).to.equal(2);
  });

  beforeEach(async () => {
    bp = await chromium.newPage();
  });

  for (const size of [DESKTOP, PHONE]) {
    it(`is the first screen after sign-in and counts what needs attention; each count opens the list of exactly those rows (${size.width} px)`, async () => {
      const { page } = bp;
      await page.setViewportSize(size);
      await signInWithKeyboard(page, company.admin.username, company.admin.password, { onOverview: true });
      expect(page.url()).to.match(/#\/overview$/);

      expect(await blockCount(page, 'Below minimum stock')).to.equal(1);
      expect(await blockCount(page, 'Expiring batches')).to.equal(1);
      expect(await blockCount(page, 'Open events')).to.equal(2);
      expect(await blockCount(page, 'Latest movements')).to.equal(4);
      const severities = page.locator('section.overview-block', { has: page.getByRole('heading', { name: 'Open events' }) }).locator('li a');
      expect(await severities.evaluateAll((links: any[]) => links.map((a) => [a.textContent.trim(), a.dataset.count]))).to.deep.equal([
        ['INFO 0', '0'],
        ['WARNING 1', '1'],
        ['CRITICAL 1', '1'],
      ]);
      const overviewText = await page.locator('main').innerText();
      expect(overviewText).to.include(`${low.sku} — Hex nut M8: 3 pcs`);
      const expiringText = await page.locator('section.overview-block', { has: page.getByRole('heading', { name: 'Expiring batches' }) }).innerText();
      expect(expiringText).to.include(soon);
      expect(expiringText).not.to.include(later);
      // The latest movements by name: product, batch code, locations, who booked.
      expect(overviewText).to.include(`(batch ${later})`);
      expect(overviewText).to.include('Inbound → Central warehouse');
      expect(overviewText).not.to.match(UUID);
      if (size === PHONE) await screenshotChecked(page, 'overview', DASHBOARD_CHECKS);

      // A wider window counts the batch expiring in 60 days too.
      await page.getByLabel('Expiring within').selectOption('90');
      await screenHeading(page, 'Overview').waitFor();
      await page.waitForFunction(() => (globalThis as any).location.hash === '#/overview?days=90');
      await settled(page);
      expect(await blockCount(page, 'Expiring batches')).to.equal(2);

      await openBlock(page, 'Expiring batches', 'Batches');
      let rows = await rowTexts(page);
      expect(rows.map((r) => r.split(/\s/)[0].trim()).sort()).to.deep.equal([later, soon].sort());
      await goTo(page, '#/overview', 'Overview');
      await openBlock(page, 'Expiring batches', 'Batches');
      rows = await rowTexts(page);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include(soon);
      expect(await page.getByRole('form', { name: 'Filter batches' }).getByLabel('Stock', { exact: true }).inputValue()).to.equal('true');

      await goTo(page, '#/overview', 'Overview');
      await openBlock(page, 'Below minimum stock', 'Stock');
      rows = await rowTexts(page);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include(low.sku);
      expect(await page.getByRole('form', { name: 'Filter stock levels' }).getByLabel('Minimum stock').inputValue()).to.equal('true');

      await goTo(page, '#/overview', 'Overview');
      await openBlock(page, 'Open events', 'Events');
      expect(await rowTexts(page)).to.have.length(2);
      await goTo(page, '#/overview', 'Overview');
      await page.locator('section.overview-block li a', { hasText: 'CRITICAL' }).click();
      await screenHeading(page, 'Events').waitFor();
      await settled(page);
      rows = await rowTexts(page);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include('Glue expiry');
      expect(await page.getByRole('form', { name: 'Filter events' }).getByLabel('Severity').inputValue()).to.equal('CRITICAL');

      await goTo(page, '#/overview', 'Overview');
      await openBlock(page, 'Latest movements', 'Movements');
      expect(await rowTexts(page)).to.have.length(4);
      expect(unexpectedProblems(bp)).to.deep.equal([]);
    });
  }

  it('follows the system dark setting in the dashboard and the widget: other colours than light ones, contrast at least 4.5:1', async () => {
    const { page } = bp;
    await signInWithKeyboard(page, company.admin.username, company.admin.password, { onOverview: true });
    const measure = async () => ({
      body: await colorsOf(page, 'body'),
      block: await colorsOf(page, 'section.overview-block h2'),
      lead: await colorsOf(page, '.screen-head .lead'),
      nav: await colorsOf(page, 'nav .nav-title'),
      badge: await colorsOf(page, '.badge-bad'),
      topbar: await colorsOf(page, '.topbar button.secondary'),
    });
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await measure();
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await measure();
    await saveScreenshot(page, 'dashboard/overview-dark-1280');
    expect(dark.body.bg, 'dark background').not.to.deep.equal(light.body.bg);
    expect(dark.body.fg, 'dark text').not.to.deep.equal(light.body.fg);
    // Dark means a dark background under light text.
    expect(contrast(dark.body.bg, [0, 0, 0])).to.be.below(contrast(light.body.bg, [0, 0, 0]));
    for (const [scheme, colors] of Object.entries({ light, dark })) {
      for (const [what, { fg, bg }] of Object.entries(colors)) {
        expect(contrast(fg, bg), `${scheme} ${what}: ${JSON.stringify(fg)} on ${JSON.stringify(bg)}`).to.be.at.least(4.5);
      }
    }

    // The widget: its own page, the same setting.
    const widget = await bp.context.newPage();
    await widget.goto(`${system().url}/widget/`);
    await widget.waitForLoadState('load');
    await widget.emulateMedia({ colorScheme: 'light' });
    const wLight = await colorsOf(widget, 'body');
    await widget.emulateMedia({ colorScheme: 'dark' });
    const wDark = await colorsOf(widget, 'body');
    expect(wDark.bg).not.to.deep.equal(wLight.bg);
    expect(wDark.fg).not.to.deep.equal(wLight.fg);
    expect(contrast(wLight.fg, wLight.bg)).to.be.at.least(4.5);
    expect(contrast(wDark.fg, wDark.bg)).to.be.at.least(4.5);
    await widget.close();
  });

  it('brings an error into view with the focus, in words for people, and a new message replaces it (phone)', async () => {
    const own = await buildCompany();
    const location = await buildLocation(own);
    for (let i = 1; i <= 20; i++) await buildProduct(own, { sku: `ITEM-${String(i).padStart(2, '0')}`, name: `Item ${String(i).padStart(2, '0')}` });
    const used = await buildProduct(own, { sku: 'ZZ-USED', name: 'Zz in use' });
    await addStock(own, used.id, location.id, 1);
    const { page } = bp;
    await page.setViewportSize(PHONE);
    await signInWithKeyboard(page, own.admin.username, own.admin.password);
    const remove = page.getByRole('button', { name: 'Delete ZZ-USED' });
    await remove.scrollIntoViewIfNeeded();
    expect(await page.evaluate(() => (globalThis as any).scrollY)).to.be.above(500);
    await remove.click();
    await confirm(page, 'Delete product');
    const alert = page.locator('.notices [role=alert]');
    await alert.waitFor();
    // Focused and inside the viewport.
    expect(await page.evaluate(() => Boolean((globalThis as any).document.activeElement?.closest('.notices [role=alert]')))).to.equal(true);
    const box = (await alert.boundingBox())!;
    expect(box.y).to.be.at.least(0);
    expect(box.y + box.height).to.be.at.most(PHONE.height);
    const text = await alert.innerText();
    expect(text).to.include('This product has stock or history, so it cannot be deleted. Deactivate it instead');
    expect(text).to.include('It is still used by stock movements');
    for (const jargon of ['PATCH', 'is_active', 'used_by', 'stock_movements', '["']) expect(text, jargon).not.to.include(jargon);
    expect((await get(`/api/v1/product-models/${used.id}/`, { token: own.token })).status).to.equal(200);

    // A second error: the message replaces the first (one message shown).
    await remove.click();
    await confirm(page, 'Delete product');
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.closest('.notices [role=alert]'));
    expect(await page.locator('.notices .notice').count()).to.equal(1);
    // A form's error takes over from the notice.
    await page.locator('details.panel summary', { hasText: 'New product' }).click();
    const form = page.getByRole('form', { name: 'New product' });
    await form.getByLabel('SKU').fill('ITEM-01');
    await form.getByLabel('Name', { exact: true }).fill('Duplicate');
    await form.getByLabel('Profile (tracking mode)').selectOption('STANDARD');
    await form.getByLabel('Engine type').selectOption('counter');
    await form.getByRole('button', { name: 'Create product' }).click();
    await form.locator('input[name="sku"][aria-invalid="true"]').waitFor();
    expect(await page.locator('.notices .notice').count()).to.equal(0);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-invalid'))).to.equal('true');

    // A path inside the engine config is named in words, not as `engine_config.monitoring_rules.0`.
    await form.getByLabel('SKU').fill(unique('RULES'));
    await form
      .getByLabel('Monitoring rules (JSON)')
      .fill('[{"trigger_type": "DATE_OFFSET", "condition_config": {"date_field": "expiration_date", "days_offset": 3}}]');
    await form.getByRole('button', { name: 'Create product' }).click();
    await form.locator('textarea[name="engine_config.monitoring_rules"][aria-invalid="true"]').waitFor();
    const ruleError = await fieldError(form.getByLabel('Monitoring rules (JSON)'));
    expect(ruleError).to.include('Monitoring rule 1, trigger: DATE_OFFSET rules need a product with batches');
    for (const jargon of ['monitoring_rules', 'engine_config', 'trigger_type', '.0']) expect(ruleError, jargon).not.to.include(jargon);
    expect(unexpectedProblems(bp, [400, 409])).to.deep.equal([]);
  });

  it('shows names, never UUIDs, in the tables of movements, batches and events', async () => {
    const { page } = bp;
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    for (const [hash, heading, expected] of [
      ['#/movements', 'Movements', [soon, 'Central warehouse', low.sku, 'API key']],
      ['#/batches', 'Batches', [soon, later, 'Glue 50 ml']],
      ['#/events?status=', 'Events', ['Glue expiry', 'Minimum stock', 'Hex nut M8']],
    ] as const) {
      await goTo(page, hash, heading);
      const text = await page.locator('table.data').innerText();
      for (const name of expected) expect(text, `${heading} shows ${name}`).to.include(name);
      expect(text, `${heading}: no UUID`).not.to.match(UUID);
    }
  });
});

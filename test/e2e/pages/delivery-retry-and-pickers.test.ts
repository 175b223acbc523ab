/**
 * Issue 17 in the dashboard, in real Chromium at 1280 px and 360 px:
 * - the Deliveries screen offers "Retry now" on a FAILED delivery; pressing it sends the delivery again to a
 *   real receiver on 127.0.0.1 that failed before and now answers 200, and the row shows DELIVERED; attempts
 *   show as what they are (IN FLIGHT, INTERRUPTED), not as FAILED;
 * - pickers search the API as one types instead of preloading every product or location: with 120 products,
 *   the Work orders screen never asks for more than one page of 50, one request per pause in typing, and a
 *   work order created without a number gets the next generated one; the location picker keeps the hierarchy.
 */
import { expect } from 'chai';
import type { Page, Request } from 'playwright-core';
import { post } from '../../support/api';
import { BrowserPage, DESKTOP, PHONE, screenshotChecked, useBrowser } from '../../support/browser';
import { TestCompany, buildCompany, unique } from '../../support/builders';
import {
  DASHBOARD_CHECKS,
  expectOptions,
  navigate,
  notice,
  openPanel,
  settled,
  signInWithKeyboard,
  typeInOneBurst,
  unexpectedProblems,
} from '../../support/dashboard-page';
import { Receiver, startReceiver } from '../../support/receiver';
import { query, row } from '../../support/sql';
import { buildChannel } from '../monitor/helpers';

const PRODUCTS = 120;

/** The product list requests the page sends, with what each asked for and how many products it got. */
function recordProductLookups(page: Page): Array<{ search: string | null; pageSize: number; results: Promise<number> }> {
  const seen: Array<{ search: string | null; pageSize: number; results: Promise<number> }> = [];
  page.on('request', (r: Request) => {
    const url = new URL(r.url());
    if (r.method() !== 'GET' || url.pathname !== '/api/v1/product-models/') return;
    seen.push({
      search: url.searchParams.get('search'),
      pageSize: Number(url.searchParams.get('page_size') ?? 0),
      results: r.response().then(async (res) => ((await res?.json()) as { results: unknown[] } | undefined)?.results.length ?? 0),
    });
  });
  return seen;
}

describe('dashboard: retry a failed delivery, pickers that search as you type (browser)', function () {
  this.timeout(240_000);
  const chromium = useBrowser('delivery retry and pickers (browser)');
  let bp: BrowserPage;
  let receiver: Receiver;
  const tag = unique('p').toLowerCase();

  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });
  beforeEach(async () => {
    bp = await chromium.newPage();
  });

  for (const size of [DESKTOP, PHONE]) {
    it(`at ${size.width} px: "Retry now" sends a FAILED delivery again; the receiver answers 200 and the row shows DELIVERED`, async () => {
      const company = await buildCompany();
      const channel = await buildChannel(company, { name: `Hook ${tag}`, url: receiver.url, max_attempts: 1 });
      receiver.status = 500;
      const sent = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
      receiver.status = 200;
      expect(sent.body.delivery.status).to.equal('FAILED');
      const id: string = sent.body.delivery.id;
      // Another delivery with an attempt in flight and one interrupted: shown as such, not as FAILED.
      const other = await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, { token: company.token });
      await query("UPDATE notification_attempts SET status = 'INTERRUPTED', ok = false, error = 'interrupted' WHERE delivery_id = $1", [
        other.body.delivery.id,
      ]);
      await query(
        `INSERT INTO notification_attempts (company_id, delivery_id, number, status, ok, duration_ms, started_at)
         VALUES ($1, $2, 2, 'STARTED', false, 0, now())`,
        [company.id, other.body.delivery.id],
      );
      await query("UPDATE notification_deliveries SET status = 'RETRYING', attempts = 2, max_attempts = 3 WHERE id = $1", [other.body.delivery.id]);

      const { page } = bp;
      await page.setViewportSize(size);
      await signInWithKeyboard(page, company.admin.username, company.admin.password);
      await navigate(page, 'Deliveries');
      const before = receiver.requests.length;

      const retry = page.getByRole('button', { name: `Retry delivery ${id.slice(0, 8)} now` });
      expect(await retry.count(), 'one retry button: only the FAILED delivery has one').to.equal(1);
      expect(await page.getByRole('button', { name: /^Retry delivery/ }).count()).to.equal(1);

      const attempts = page.locator('details.attempts', { has: page.locator('table caption', { hasText: other.body.delivery.id }) });
      await attempts.locator('summary').click();
      const results = await attempts.locator('tbody td[data-label="Result"] .badge').allTextContents();
      expect(results).to.deep.equal(['INTERRUPTED', 'IN FLIGHT']);
      await screenshotChecked(page, `deliveries-retry-${size.width}`, DASHBOARD_CHECKS);

      await retry.click();
      await notice(page, 'delivered');
      await settled(page);
      expect(receiver.requests.length).to.equal(before + 1);
      expect(await row('SELECT status, attempts FROM notification_deliveries WHERE id = $1', [id])).to.deep.equal({ status: 'DELIVERED', attempts: 2 });
      expect(await page.getByRole('button', { name: /^Retry delivery/ }).count(), 'no retry button once delivered').to.equal(0);
      expect(unexpectedProblems(bp)).to.deep.equal([]);
    });
  }

  describe('pickers', () => {
    let company: TestCompany;
    before(async () => {
      company = await buildCompany();
      const products = Array.from({ length: PRODUCTS }, (_, i) => ({
        sku: `${tag}-${String(i).padStart(3, '0')}`,
        name: i === 77 ? `Needle ${tag}` : `Hay ${i} ${tag}`,
        profile: 'STANDARD',
        engine_config: { engine_type: 'counter' },
      }));
      const imported = await post('/api/v1/product-models/import/', { products }, { token: company.token });
      expect(imported.status, JSON.stringify(imported.body)).to.be.oneOf([200, 201]);
      const hall = await post('/api/v1/locations/', { name: `Hall ${tag}`, type: 'WAREHOUSE' }, { token: company.token });
      await post('/api/v1/locations/', { name: `Rack ${tag}`, type: 'SHELF', parent_id: hall.body.id }, { token: company.token });
      await post('/api/v1/locations/', { name: `Yard ${tag}`, type: 'STORE' }, { token: company.token });
    });

    for (const size of [DESKTOP, PHONE]) {
      it(`at ${size.width} px: the product picker asks one page (never all ${PRODUCTS}), searches as one types, by keyboard; a work order without a number gets WO-000n`, async () => {
        const { page } = bp;
        await page.setViewportSize(size);
        const lookups = recordProductLookups(page);
        await signInWithKeyboard(page, company.admin.username, company.admin.password);
        await navigate(page, 'Work orders');

        const form = await openPanel(page, 'New work order');
        const picker = form.locator('select[name="product_id"]');
        await expectOptions(page, picker, (l) => l.length > 1, 'the first page of products');
        const initial = await picker.locator('option').count();
        expect(initial, 'the "No product" option and at most one page').to.be.at.most(51).and.at.least(2);

        const search = form.locator('.field', { has: page.locator('select[name="product_id"]') }).getByRole('searchbox', { name: 'Search', exact: true });
        const before = lookups.length;
        await typeInOneBurst(search, 'needle');
        const labels = await expectOptions(
          page,
          picker,
          (l) => l.some((x) => x.includes(`Needle ${tag}`)) && l.length === 2,
          'the search narrows to the needle',
        );
        expect(labels).to.deep.equal(['No product', `${tag}-077 — Needle ${tag}`]);
        expect(
          lookups.slice(before).map((l) => l.search),
          'debounced: one request for the word',
        ).to.deep.equal(['needle']);

        // Keyboard: ArrowDown from the search box to the picker, then choose with the arrow keys.
        await search.press('ArrowDown');
        expect(await picker.evaluate((el) => el === (globalThis as any).document.activeElement)).to.equal(true);
        await picker.press('ArrowDown');
        expect(await picker.inputValue()).to.not.equal('');

        await form.getByLabel('Title').fill(`Find the needle ${size.width}`);
        await form.getByRole('button', { name: 'Create work order' }).click();
        await notice(page, /Work order WO-000\d created/);
        const created = await row<{ number: string; product_id: string | null }>(
          'SELECT number, product_id FROM work_orders WHERE company_id = $1 AND title = $2',
          [company.id, `Find the needle ${size.width}`],
        );
        expect(created.number).to.match(/^WO-000[12]$/);
        expect(created.product_id).to.not.equal(null);

        await settled(page);
        const sizes = await Promise.all(lookups.map((l) => l.results));
        expect(
          lookups.every((l) => l.pageSize > 0 && l.pageSize <= 50),
          JSON.stringify(lookups.map((l) => l.pageSize)),
        ).to.equal(true);
        expect(Math.max(...sizes), 'no answer holds every product').to.be.below(PRODUCTS);
        expect(
          sizes.reduce((a, b) => a + b, 0),
          'fewer products fetched than the company has',
        ).to.be.below(PRODUCTS * 2);
        await screenshotChecked(page, `work-orders-picker-${size.width}`, DASHBOARD_CHECKS);
        expect(unexpectedProblems(bp)).to.deep.equal([]);
      });
    }

    it('the location picker searches as one types and shows what it finds under its parent', async () => {
      const { page } = bp;
      await page.setViewportSize(PHONE);
      await signInWithKeyboard(page, company.admin.username, company.admin.password);
      await navigate(page, 'Items');
      const form = await openPanel(page, 'New item');
      const picker = form.locator('select[name="location_id"]');
      await expectOptions(page, picker, (l) => l.some((x) => x.startsWith(`Yard ${tag}`)), 'the first page of locations');
      const asked: string[] = [];
      page.on('request', (r: Request) => {
        const url = new URL(r.url());
        if (url.pathname === '/api/v1/locations/' && url.searchParams.get('search')) asked.push(url.searchParams.get('search')!);
      });
      await typeInOneBurst(
        form.locator('.field', { has: page.locator('select[name="location_id"]') }).getByRole('searchbox', { name: 'Search', exact: true }),
        'rack',
      );
      const labels = await expectOptions(
        page,
        picker,
        (l) => l.some((x) => x.includes(`Rack ${tag}`)) && !l.some((x) => x.startsWith(`Yard ${tag}`)),
        'the search narrows to the rack',
      );
      expect(asked).to.deep.equal(['rack']);
      expect(labels, 'the rack under its parent (read for it), nothing else').to.have.length(3);
      const hall = labels.findIndex((l) => l.startsWith(`Hall ${tag}`));
      expect(hall, labels.join(' | ')).to.be.greaterThan(-1);
      expect(labels[hall + 1]).to.match(new RegExp(`^\\s+└ Rack ${tag} \\(shelf\\)$`));
      expect(unexpectedProblems(bp)).to.deep.equal([]);
    });
  });
});

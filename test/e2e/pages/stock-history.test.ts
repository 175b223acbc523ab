/**
 * Stock over time in the pages (docs/api/stock-history.md), in headless Chromium: the product page of the
 * dashboard draws the chart (uPlot, a chunk loaded there only) with a text summary and a table, at desktop and
 * phone widths, and follows the interval chosen; the widget's product view shows its sparkline.
 */
import { expect } from 'chai';
import { BrowserPage, DESKTOP, PHONE, pageProblems, screenshotChecked, useBrowser } from '../../support/browser';
import { addStock, buildCompany, buildLocation, buildProduct, buildUser, configuredCode, unique } from '../../support/builders';
import { DASHBOARD_CHECKS, screenHeading, settled, signInWithKeyboard, unexpectedProblems } from '../../support/dashboard-page';
import { ScanGateway, WIDGET_CHECKS, startScanGateway } from '../../support/pages';

describe('stock history in the pages (browser)', function () {
  this.timeout(120_000);
  const chromium = useBrowser('stock history in the pages (browser)');
  let bp: BrowserPage;
  beforeEach(async () => {
    bp = await chromium.newPage();
  });

  /** A product with 12 at one place and 3 at another (15 in all), booked today. */
  async function stocked() {
    const company = await buildCompany();
    const product = await buildProduct(company, { name: 'Charted bolts', sku: unique('CB') });
    const [north, south] = [await buildLocation(company, unique('North')), await buildLocation(company, unique('South'))];
    await addStock(company, product.id, north.id, 12);
    await addStock(company, product.id, south.id, 3);
    return { company, product, north, south };
  }

  /** The chart's canvas has drawn at a width that fits the window; answers the canvas's CSS width. */
  async function chartWidth(): Promise<number> {
    const canvas = bp.page.locator('.history-chart canvas');
    await canvas.waitFor();
    const box = await canvas.boundingBox();
    expect(box, 'the canvas is laid out').to.not.equal(null);
    expect(box!.height).to.be.greaterThan(100);
    return box!.width;
  }

  it('draws the chart of a product with its summary and table, and follows the interval (desktop)', async () => {
    const { company, product, north } = await stocked();
    const { page } = bp;
    await page.setViewportSize(DESKTOP);
    const assets: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/dashboard/assets/')) assets.push(new URL(r.url()).pathname);
    });
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    expect(
      assets.some((a) => a.includes('/chunks/uPlot')),
      'uPlot is not loaded before a chart is shown',
    ).to.equal(false);

    await page.getByRole('button', { name: `Stock history of ${product.sku}` }).click();
    await screenHeading(page, `${product.sku} — ${product.name}`).waitFor();
    await settled(page);
    expect(await chartWidth()).to.be.greaterThan(600);
    expect(
      assets.some((a) => /\/dashboard\/assets\/chunks\/uPlot[^/]*\.js$/.test(a)),
      'the uPlot chunk is fetched on the product page',
    ).to.equal(true);
    const summary = page.locator('.history-summary');
    expect(await summary.textContent()).to.match(/^Now 15 pcs \(/);
    expect(await summary.textContent()).to.include('over 30 days');
    expect(await page.locator('.history-chart').getAttribute('aria-hidden')).to.equal('true');
    const rows = page.locator('.history-table tbody tr');
    expect(await rows.count()).to.equal(30);
    expect(await rows.first().locator('td').textContent()).to.equal('15 pcs');
    expect(await rows.last().locator('td').textContent()).to.equal('0 pcs');

    await page.getByLabel('Interval').selectOption('week');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.history-summary')?.textContent.includes('weeks'), undefined, {
      timeout: 10_000,
    });
    expect(await rows.count()).to.equal(12);
    expect(await rows.first().locator('th').textContent()).to.match(/^Week of /);

    await page.getByLabel('Location').selectOption(north.id);
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.history-summary')?.textContent.startsWith('Now 12 pcs'), undefined, {
      timeout: 10_000,
    });
    await page.locator('summary', { hasText: 'Table of the balances' }).click();
    await screenshotChecked(page, 'stock-history', DASHBOARD_CHECKS);
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });

  it('fits the chart and its summary into a phone’s width, for a viewer who opens the product by its name', async () => {
    const { company, product } = await stocked();
    const viewer = await buildUser(company, { role: 'viewer' });
    const { page } = bp;
    await page.setViewportSize(PHONE);
    await signInWithKeyboard(page, viewer.username, viewer.password);
    await page.getByRole('link', { name: product.name }).click();
    await screenHeading(page, `${product.sku} — ${product.name}`).waitFor();
    await settled(page);
    const width = await chartWidth();
    expect(width).to.be.at.most(PHONE.width);
    expect(width).to.be.greaterThan(200);
    expect(await page.locator('.history-summary').textContent()).to.match(/^Now 15 pcs \(/);
    await page.locator('summary', { hasText: 'Table of the balances' }).click();
    expect(await page.locator('.history-table tbody tr').first().textContent()).to.include('15 pcs');
    await screenshotChecked(page, 'stock-history-phone', DASHBOARD_CHECKS);
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });

  describe('the widget', () => {
    let scan: ScanGateway;
    before(async () => {
      scan = await startScanGateway();
    });
    after(async () => {
      await scan?.close();
    });

    it('shows a sparkline of the last 30 days in the product view, with a text alternative', async () => {
      const { company, product } = await stocked();
      const code = await configuredCode(company, product.id);
      const { page } = bp;
      await page.setViewportSize(PHONE);
      await page.goto(scan.scanUrl(code));
      await page.getByRole('heading', { level: 2, name: product.name }).waitFor();
      const spark = page.getByRole('img', { name: /^Stock over the last 30 days/ });
      await spark.waitFor();
      expect(await spark.getAttribute('aria-label')).to.equal('Stock over the last 30 days: 0 pcs at the start, 15 pcs now.');
      const points = (await page.locator('svg.sparkline polyline').getAttribute('points'))!.split(' ');
      expect(points).to.have.length(30);
      // Flat at zero, then up to the top from the day of the booking: today, or yesterday when the run crossed
      // midnight UTC between booking and drawing.
      const ys = points.map((p) => Number(p.split(',')[1]));
      expect(ys.at(-1)!).to.be.lessThan(ys[0]);
      const firstTop = ys.indexOf(ys.at(-1)!);
      expect(new Set(ys.slice(0, firstTop)).size).to.equal(1);
      expect(new Set(ys.slice(firstTop)).size).to.equal(1);
      expect(ys.length - firstTop).to.be.within(1, 2);
      await screenshotChecked(page, 'widget-sparkline', WIDGET_CHECKS);
      expect(pageProblems(bp, { expectedConsole: /(?!)/, failedRequests: true, labelled: true })).to.deep.equal([]);
    });

    it('keeps the booking form still while the sparkline loads: nothing moves under a finger about to tap', async () => {
      const { company, product } = await stocked();
      const code = await configuredCode(company, product.id);
      const { page } = bp;
      await page.setViewportSize(PHONE);
      // The history answers late, as on a slow line: the view is on screen before its sparkline.
      let answerHistory!: () => void;
      const historyHeld = new Promise<void>((resolve) => (answerHistory = resolve));
      await page.route(/\/history\/(\?|$)/, async (route) => {
        await historyHeld;
        await route.continue();
      });
      await page.goto(scan.scanUrl(code));
      await page.getByRole('heading', { level: 2, name: product.name }).waitFor();
      const subtract = page.locator('.booking .segment label', { hasText: /^Subtract$/ });
      const before = await subtract.boundingBox();
      answerHistory();
      await page.getByRole('img', { name: /^Stock over the last 30 days/ }).waitFor();
      const after = await subtract.boundingBox();
      expect(before, 'the Subtract button is laid out').to.not.equal(null);
      expect(after, 'where Subtract is once the sparkline is drawn').to.deep.equal(before);
    });
  });
});

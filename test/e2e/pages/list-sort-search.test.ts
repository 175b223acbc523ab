/**
 * Dashboard lists sorted by their column headers and searched as one types (docs/api/ordering-and-search.md),
 * in real Chromium at 1280 px and at 360 px (where the sortable headers become a row of sort buttons above the
 * cards), and the location picker showing the hierarchy.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { post } from '../../support/api';
import { BrowserPage, DESKTOP, PHONE, useBrowser } from '../../support/browser';
import { TestCompany, buildCompany, buildProduct, unique } from '../../support/builders';
import { DASHBOARD_CHECKS, navigate, settled, signInWithKeyboard, unexpectedProblems } from '../../support/dashboard-page';
import { screenshotChecked } from '../../support/browser';

/** The SKUs of the product rows shown, in order (first cell of each body row, desktop or card). */
async function shownSkus(page: Page): Promise<string[]> {
  return page.locator('table.data tbody tr td:first-child strong').allTextContents();
}

/** Waits until the list shows exactly `expected` (a search or sort answers after a moment). */
async function expectSkus(page: Page, expected: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  let shown: string[] = [];
  while (Date.now() < deadline) {
    await settled(page);
    shown = await shownSkus(page);
    if (JSON.stringify(shown) === JSON.stringify(expected)) return;
    await page.waitForTimeout(100);
  }
  expect(shown).to.deep.equal(expected);
}

describe('dashboard lists: sort by header, search as you type (browser)', function () {
  this.timeout(240_000);
  const chromium = useBrowser('dashboard lists (browser)');
  let bp: BrowserPage;
  let company: TestCompany;
  const tag = unique('s').toLowerCase();
  const skus = [`A-${tag}`, `B-${tag}`, `C-${tag}`];

  before(async () => {
    company = await buildCompany();
    // Names in the reverse order of the SKUs, so that sorting by name and by SKU differ.
    await buildProduct(company, { sku: skus[0], name: `zebra ${tag}` });
    await buildProduct(company, { sku: skus[1], name: `yak 50%_ ${tag}` });
    await buildProduct(company, { sku: skus[2], name: `xenops ${tag}` });
    // Another company's product of the same name must never show.
    const other = await buildCompany();
    await buildProduct(other, { sku: `OTHER-${tag}`, name: `yak 50%_ ${tag}` });
    const parent = await post('/api/v1/locations/', { name: `Hall ${tag}`, type: 'WAREHOUSE' }, { token: company.token });
    await post('/api/v1/locations/', { name: `Rack ${tag}`, type: 'SHELF', parent_id: parent.body.id }, { token: company.token });
  });

  beforeEach(async () => {
    bp = await chromium.newPage();
  });

  for (const size of [DESKTOP, PHONE]) {
    it(`at ${size.width} px: a header click sorts (aria-sort follows), a second click reverses, and the search box narrows the list`, async () => {
      const { page } = bp;
      await page.setViewportSize(size);
      await signInWithKeyboard(page, company.admin.username, company.admin.password);
      await navigate(page, 'Products');
      await expectSkus(page, [...skus].reverse()); // by name: xenops, yak, zebra

      const skuHeader = page.locator('table.data thead th', { has: page.getByRole('button', { name: /^SKU/ }) });
      const nameHeader = page.locator('table.data thead th', { has: page.getByRole('button', { name: /^Name/ }) });
      expect(await nameHeader.getAttribute('aria-sort')).to.equal('ascending');
      expect(await skuHeader.getAttribute('aria-sort')).to.equal('none');

      await skuHeader.getByRole('button').click();
      await expectSkus(page, skus);
      expect(await skuHeader.getAttribute('aria-sort')).to.equal('ascending');
      expect(await nameHeader.getAttribute('aria-sort')).to.equal('none');

      await skuHeader.getByRole('button').click();
      await expectSkus(page, [...skus].reverse());
      expect(await skuHeader.getAttribute('aria-sort')).to.equal('descending');

      // Typed like a person: the list asks the API once typing pauses; % and _ are plain characters.
      const search = page.getByRole('searchbox', { name: 'Search SKU or name' });
      await search.pressSequentially('50%_', { delay: 30 });
      await expectSkus(page, [skus[1]]);
      await search.fill('');
      await search.pressSequentially(tag.toUpperCase(), { delay: 10 });
      await expectSkus(page, [...skus].reverse()); // still sorted by SKU, descending
      await screenshotChecked(page, `products-sorted-searched-${size.width}`, DASHBOARD_CHECKS);
      expect(unexpectedProblems(bp)).to.deep.equal([]);
    });
  }

  it('a product picker searches the API as one types, and keeps the product chosen', async () => {
    const { page } = bp;
    await page.setViewportSize(PHONE);
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await navigate(page, 'Movements');
    const form = page.getByRole('form', { name: 'Filter movements' });
    const picker = form.getByLabel('Product', { exact: true });
    await picker.selectOption({ label: `${skus[0]} — zebra ${tag}` });
    const lookups: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/v1/product-models/') && r.url().includes('search=')) lookups.push(new URL(r.url()).searchParams.get('search')!);
    });
    await form
      .locator('.field', { has: page.locator('select[name="product_id"]') })
      .getByRole('searchbox', { name: 'Search', exact: true })
      .pressSequentially('yak 50%', { delay: 20 });
    const expected = ['All products', `${skus[0]} — zebra ${tag}`, `${skus[1]} — yak 50%_ ${tag}`];
    await page.waitForFunction(
      (n) => (globalThis as any).document.querySelector('form[aria-label="Filter movements"] select[name="product_id"]')?.options.length === n,
      expected.length,
      { timeout: 10_000 },
    );
    expect(await picker.locator('option').allTextContents()).to.deep.equal(expected);
    expect(await picker.inputValue(), 'the chosen product stays chosen').to.not.equal('');
    // Debounced: one request for the whole word, not one per key.
    expect(lookups).to.deep.equal(['yak 50%']);
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });

  it('the location picker shows each location under its parent, indented', async () => {
    const { page } = bp;
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await navigate(page, 'Locations');
    const labels = await page.locator('select[name="parent_id"]').first().locator('option').allTextContents();
    const hall = labels.findIndex((l) => l.startsWith(`Hall ${tag}`));
    expect(hall, labels.join(' | ')).to.be.greaterThan(-1);
    expect(labels[hall + 1]).to.match(new RegExp(`^\\s+└ Rack ${tag} \\(shelf\\)$`));
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });
});

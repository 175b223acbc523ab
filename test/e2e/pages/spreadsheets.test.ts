/**
 * The spreadsheet part of the dashboard's Import & export screen (docs/api/spreadsheets.md) in headless
 * Chromium: a large movements download that shows its progress as rows arrive and saves the file, the CSV
 * imports of locations and opening stock (problems by row and column, dry run, then the import) at phone and
 * desktop widths, the products download edited and imported back as an update, and a viewer who may download
 * but gets no import forms.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { api, get } from '../../support/api';
import { BrowserPage, DESKTOP, PHONE, screenshotChecked, useBrowser } from '../../support/browser';
import { buildCompany, buildLocation, buildProduct, buildUser } from '../../support/builders';
import { DASHBOARD_CHECKS, navigate, signInWithKeyboard, unexpectedProblems } from '../../support/dashboard-page';

/**
 * The page's problems, less one report of the browser's instrumentation: Chromium reports a completed fetch of
 * a `text/csv` attachment as `net::ERR_ABORTED` once the body has been read (the JSON export's is not), though
 * the page got every byte; each test checks the saved file whole, which a cut download would fail.
 */
function problemsBesidesCsvAbort(bp: BrowserPage, expectedStatuses: number[] = []): string[] {
  return unexpectedProblems(bp, expectedStatuses).filter(
    (p) => !/^failed request: GET \S+\/api\/v1\/export\/(products|stock|movements)\/\S*: net::ERR_ABORTED$/.test(p),
  );
}

describe('dashboard (browser): spreadsheets', function () {
  this.timeout(180_000);
  const chromium = useBrowser('dashboard (browser): spreadsheets');
  let bp: BrowserPage;
  beforeEach(async () => {
    bp = await chromium.newPage();
  });

  it('downloads a large movements file with its progress shown as the rows arrive (desktop)', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { name: 'Streamed' });
    await buildLocation(company, 'North');
    await buildLocation(company, 'South');
    const rows = 2500;
    const csv = ['sku,location,quantity', ...Array.from({ length: rows }, (_, i) => `${product.sku},${i % 2 ? 'North' : 'South'},1`)].join('\n');
    const booked = await api('POST', '/api/v1/stock/import/', { token: company.token, rawBody: csv, headers: { 'content-type': 'text/csv' } });
    expect(booked.status, JSON.stringify(booked.body).slice(0, 300)).to.equal(201);

    const { page } = bp;
    await page.setViewportSize(DESKTOP);
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await navigate(page, 'Import & export');
    // Every text the status shows, and whether the progress bar was visible meanwhile.
    await page.evaluate(() => {
      const w = globalThis as any;
      const status = w.document.querySelector('.sheet-status');
      const progress = w.document.querySelector('.export-progress');
      w.seenStatus = [];
      new w.MutationObserver(() => w.seenStatus.push({ text: status.textContent, progressShown: !progress.hidden })).observe(status, {
        childList: true,
        subtree: true,
        characterData: true,
      });
    });
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download movements (CSV)' }).click()]);
    expect(file.suggestedFilename()).to.match(/^movements-.*\.csv$/);
    await page.locator('.sheet-status', { hasText: `Downloaded ${file.suggestedFilename()}: 2,500 row(s)` }).waitFor();
    const seen = (await page.evaluate(() => (globalThis as any).seenStatus)) as Array<{ text: string; progressShown: boolean }>;
    const during = seen.filter((s) => /received…$/.test(s.text));
    expect(during.length, JSON.stringify(seen.slice(0, 5))).to.be.above(1);
    expect(during.every((s) => s.progressShown)).to.equal(true);
    const counts = during.map((s) => Number(/: ([\d,]+) row/.exec(s.text)![1].replace(/,/g, '')));
    expect(counts).to.deep.equal([...counts].sort((x, y) => x - y));
    expect(counts[counts.length - 1]).to.be.above(0);

    const text = fs.readFileSync(await file.path(), 'utf8').replace(/^\uFEFF/, '');
    const lines = text.split('\r\n').filter(Boolean);
    expect(lines).to.have.length(rows + 1);
    expect(lines[0].split(',').slice(0, 4)).to.deep.equal(['created_at', 'kind', 'sku', 'product_name']);
    expect(lines[1].split(',').slice(1, 4)).to.deep.equal(['ADD', product.sku, 'Streamed']);
    expect(await page.locator('body').textContent()).not.to.match(/\b(uuid|product_id|location_id)\b/i);

    // The products and stock levels download too.
    const [stock] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download stock levels (CSV)' }).click()]);
    expect(stock.suggestedFilename()).to.match(/^stock-.*\.csv$/);
    expect(fs.readFileSync(await stock.path(), 'utf8')).to.include(`${product.sku},Streamed,North,`);
    expect(problemsBesidesCsvAbort(bp)).to.deep.equal([]);
  });

  for (const [size, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    it(`imports locations and then opening stock, problems named by row and column, dry run first (${size})`, async () => {
      const company = await buildCompany();
      const product = await buildProduct(company, { name: 'Imported bolt' });
      const { page } = bp;
      await page.setViewportSize(viewport);
      await signInWithKeyboard(page, company.admin.username, company.admin.password);
      await navigate(page, 'Import & export');

      const locations = page.getByRole('form', { name: 'Import locations' });
      const content = locations.getByLabel('Or paste the content');
      await content.fill('name,type,parent\nHall,WAREHOUSE,\nBin 1,CUPBOARD,Hall');
      await locations.getByRole('button', { name: 'Import' }).click();
      const problems = page.locator('.import-outcome table').first();
      await problems.waitFor();
      const problem = (await problems.locator('tbody tr').first().textContent()) ?? '';
      expect(problem).to.include('2').and.include('type');

      await content.fill('name,type,parent\nHall,WAREHOUSE,\nBin 1,SHELF,Hall');
      await locations.getByRole('button', { name: 'Import' }).click();
      await page.locator('.import-outcome', { hasText: 'Dry run passed: 2 location(s) would be imported.' }).waitFor();
      expect((await get('/api/v1/locations/?type=SHELF', { token: company.token })).body.count).to.equal(0);
      await locations.getByLabel('Dry run: check only, import nothing').uncheck();
      await locations.getByRole('button', { name: 'Import' }).click();
      await page.locator('.import-outcome', { hasText: '2 location(s) imported.' }).waitFor();
      const shelves = (await get('/api/v1/locations/?type=SHELF', { token: company.token })).body.results as Array<{ name: string; parent_id: string }>;
      expect(shelves.map((l) => l.name)).to.deep.equal(['Bin 1']);

      const stock = page.getByRole('form', { name: 'Import opening stock' });
      await stock.getByLabel('Or paste the content').fill(`sku,location,quantity\n${product.sku},Bin 1,7\n${product.sku},Nowhere,1`);
      await stock.getByLabel('Dry run: check only, import nothing').uncheck();
      await stock.getByRole('button', { name: 'Import' }).click();
      await page.locator('.import-outcome table', { hasText: 'Nowhere' }).waitFor();
      expect((await get('/api/v1/movements/', { token: company.token })).body.count).to.equal(0);
      await stock.getByLabel('Or paste the content').fill(`sku,location,quantity\n${product.sku},Bin 1,7\n${product.sku},Hall,3`);
      await stock.getByRole('button', { name: 'Import' }).click();
      await page.locator('.import-outcome', { hasText: '2 stock row(s) imported.' }).waitFor();
      const level = (await get(`/api/v1/stock/?product_id=${product.id}`, { token: company.token })).body.results[0];
      expect(level.total_quantity).to.equal(10);

      await screenshotChecked(page, `import-export-spreadsheets-${size}`, DASHBOARD_CHECKS);
      expect(unexpectedProblems(bp, [400])).to.deep.equal([]);
    });
  }

  it('downloads the products, and imports the edited file back to update them: dry run first, then the counts (desktop)', async () => {
    const company = await buildCompany();
    const bolt = await buildProduct(company, { name: 'Hex bolt' });
    const nut = await buildProduct(company, { name: 'Hex nut' });
    const { page } = bp;
    await page.setViewportSize(DESKTOP);
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await navigate(page, 'Import & export');

    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download products (CSV)' }).click()]);
    const downloaded = fs.readFileSync(await file.path(), 'utf8');
    // The edit a person makes in a spreadsheet: one product renamed; the other row left as it was.
    const edited = downloaded.replace(`${bolt.sku},Hex bolt,`, `${bolt.sku},Hex bolt M8,`);
    expect(edited).not.to.equal(downloaded);

    const form = page.getByRole('form', { name: 'Import products' });
    await form.getByLabel('File (.csv or .json)').setInputFiles({ name: file.suggestedFilename(), mimeType: 'text/csv', buffer: Buffer.from(edited, 'utf8') });
    // Without the box ticked, the SKUs the company has are refused by row.
    await form.getByRole('button', { name: 'Import' }).click();
    await page.locator('.import-outcome table', { hasText: 'a product model with this sku already exists' }).waitFor();

    await form.getByLabel('Update the products whose SKU you have').check();
    await form.getByRole('button', { name: 'Import' }).click();
    await page.locator('.import-outcome', { hasText: 'Dry run passed: 2 product(s) would be imported (0 new, 1 updated, 1 unchanged).' }).waitFor();
    expect((await get(`/api/v1/product-models/${bolt.id}/`, { token: company.token })).body.name).to.equal('Hex bolt');

    await form.getByLabel('Dry run: check only, import nothing').uncheck();
    await form.getByRole('button', { name: 'Import' }).click();
    await page.locator('.import-outcome', { hasText: '2 product(s) imported (0 new, 1 updated, 1 unchanged).' }).waitFor();
    expect((await get(`/api/v1/product-models/${bolt.id}/`, { token: company.token })).body.name).to.equal('Hex bolt M8');
    expect((await get(`/api/v1/product-models/${nut.id}/`, { token: company.token })).body.name).to.equal('Hex nut');
    expect((await get('/api/v1/product-models/', { token: company.token })).body.count).to.equal(2);

    await screenshotChecked(page, 'import-export-products-updated-desktop', DASHBOARD_CHECKS);
    expect(problemsBesidesCsvAbort(bp, [400])).to.deep.equal([]);
  });

  it('refuses a chosen file that is not UTF-8, naming the file, where reading it would have put U+FFFD in its names', async () => {
    const company = await buildCompany();
    const { page } = bp;
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await navigate(page, 'Import & export');
    const locations = page.getByRole('form', { name: 'Import locations' });
    // "Café" as a spreadsheet program saves it in Windows-1252: é is the one byte E9.
    await locations
      .getByLabel('File (.csv)')
      .setInputFiles({ name: 'locations.csv', mimeType: 'text/csv', buffer: Buffer.from('name,type\r\nCaf\xe9,STORE\r\n', 'latin1') });
    await locations.getByLabel('Dry run: check only, import nothing').uncheck();
    await locations.getByRole('button', { name: 'Import' }).click();
    await locations.getByText('This file is not UTF-8 text. Save it in UTF-8 (a spreadsheet program calls it "CSV UTF-8") and choose it again.').waitFor();
    expect((await get('/api/v1/locations/?type=STORE', { token: company.token })).body.count).to.equal(0);

    // The same names saved as UTF-8 (with the byte order mark spreadsheet programs write) import as they read.
    await locations
      .getByLabel('File (.csv)')
      .setInputFiles({ name: 'locations.csv', mimeType: 'text/csv', buffer: Buffer.from('\ufeffname,type\r\nCafé,STORE\r\n', 'utf8') });
    await locations.getByRole('button', { name: 'Import' }).click();
    await page.locator('.import-outcome', { hasText: '1 location(s) imported.' }).waitFor();
    const stores = (await get('/api/v1/locations/?type=STORE', { token: company.token })).body.results as Array<{ name: string }>;
    expect(stores.map((l) => l.name)).to.deep.equal(['Café']);
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });

  it('lets a viewer download spreadsheets and shows no import of locations or stock', async () => {
    const company = await buildCompany();
    await buildProduct(company, { name: 'Seen by a viewer' });
    const viewer = await buildUser(company, { role: 'viewer' });
    const { page } = bp;
    await page.setViewportSize(PHONE);
    await signInWithKeyboard(page, viewer.username, viewer.password);
    await navigate(page, 'Import & export');
    await page.getByRole('button', { name: 'Download products (CSV)' }).waitFor();
    expect(await page.getByRole('form', { name: 'Import products' }).isVisible()).to.equal(false);
    expect(await page.getByRole('form', { name: 'Import locations' }).isVisible()).to.equal(false);
    expect(await page.getByRole('form', { name: 'Import opening stock' }).isVisible()).to.equal(false);
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download products (CSV)' }).click()]);
    const saved = fs.readFileSync(await file.path(), 'utf8');
    expect(saved).to.include('Seen by a viewer');
    expect(saved.endsWith('\r\n')).to.equal(true);
    expect(problemsBesidesCsvAbort(bp)).to.deep.equal([]);
  });
});

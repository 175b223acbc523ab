/**
 * The dashboard's part of issue 16 in headless Chromium: a product's barcode in the product form (a wrong check
 * digit is shown at the field, a good one is saved and listed), and QR codes linked to a product from the
 * code list, one at a time and the ticked ones together (docs/api/barcodes-and-camera.md).
 */
import { expect } from 'chai';
import { get } from '../../support/api';
import { wrongCheckDigit, randomGtin } from '../../support/barcodes';
import { pageProblems, useBrowser } from '../../support/browser';
import { buildCompany, buildProduct, generateCodes } from '../../support/builders';
import { fieldError, navigate, openPanel, settled, signInWithKeyboard } from '../../support/dashboard-page';

describe('Dashboard: barcodes and linking QR codes (browser)', function () {
  this.timeout(120_000);
  const chromium = useBrowser('Dashboard: barcodes and linking QR codes');

  it('saves a product barcode from the form, showing a wrong check digit at the field first', async () => {
    const company = await buildCompany();
    const bp = await chromium.newPage();
    const { page } = bp;
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    const form = await openPanel(page, 'New product');
    const barcode = randomGtin(13);
    await form.getByLabel('SKU').fill('PEN-1');
    await form.getByLabel('Name', { exact: true }).fill('Pen');
    await form.getByLabel('Barcode (optional)').fill(wrongCheckDigit(barcode));
    await form.getByRole('button', { name: 'Create product' }).click();
    await page.waitForFunction(() => (globalThis as any).document.querySelector('[aria-invalid=true]') !== null);
    expect(await fieldError(form.getByLabel('Barcode (optional)'))).to.include('wrong check digit');
    expect((await get('/api/v1/product-models/', { token: company.token })).body.count).to.equal(0);

    await form.getByLabel('Barcode (optional)').fill(barcode);
    await form.getByRole('button', { name: 'Create product' }).click();
    await page.locator('table', { hasText: 'PEN-1' }).locator('code', { hasText: barcode }).waitFor();
    const listed = (await get(`/api/v1/product-models/?barcode=${barcode}`, { token: company.token })).body.results;
    expect(listed.map((p: { sku: string }) => p.sku)).to.deep.equal(['PEN-1']);
    expect(pageProblems(bp, { expectedConsole: /status of 400/, failedRequests: true, labelled: false })).to.deep.equal([]);
  });

  it('links one VIRGIN code from its row, then two ticked codes together, to a product', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { name: 'Shelf bin', sku: 'BIN-1' });
    const [first, second, third] = await generateCodes(company, 3);
    const bp = await chromium.newPage();
    const { page } = bp;
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await navigate(page, 'QR codes');

    await page.getByRole('button', { name: `Link ${first}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Product').selectOption(product.id);
    await dialog.getByRole('button', { name: 'Link code' }).click();
    await dialog.waitFor({ state: 'detached' });
    await settled(page);
    const status = async (code: string) => (await get(`/api/v1/qr-codes/${code}/`, { token: company.token })).body;
    expect(await status(first)).to.include({ status: 'CONFIGURED', target_type: 'PRODUCT', target_id: product.id });

    await page.getByRole('checkbox', { name: `Tick ${second} to link it` }).check();
    await page.getByRole('checkbox', { name: `Tick ${third} to link it` }).check();
    await page.getByRole('button', { name: 'Link 2 ticked code(s)' }).click();
    await dialog.getByLabel('Product').selectOption(product.id);
    await dialog.getByRole('button', { name: 'Link 2 codes' }).click();
    await dialog.waitFor({ state: 'detached' });
    await settled(page);
    for (const code of [second, third]) expect(await status(code)).to.include({ status: 'CONFIGURED', target_id: product.id });
    // Linked codes are no longer offered for linking.
    expect(await page.getByRole('button', { name: `Link ${second}` }).count()).to.equal(0);
    expect(pageProblems(bp, { expectedConsole: /^$/, failedRequests: true, labelled: false })).to.deep.equal([]);
  });
});

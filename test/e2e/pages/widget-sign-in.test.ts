/**
 * Signing in inside a scanned widget (docs/api/scanning.md), in headless Chromium: under the `staff` scan
 * policy the widget asks for a user of the company before it books, a wrong password shows its message, and
 * the booking made after signing in names that user and the code in the ledger API.
 */
import { expect } from 'chai';
import { get, patch } from '../../support/api';
import { BrowserPage, pageProblems, screenshotChecked, useBrowser } from '../../support/browser';
import { addStock, buildCompany, buildLocation, buildProduct, buildUser, configuredCode, unique } from '../../support/builders';
import { ScanGateway, WIDGET_CHECKS, startScanGateway, waitForText } from '../../support/pages';
import { signInToScan } from '../../support/scan-sign-in';
import { balanceOf } from '../../support/stock';

function problems(bp: BrowserPage): string[] {
  return pageProblems(bp, { expectedConsole: /Failed to load resource: the server responded with a status of 4\d\d/, failedRequests: true, labelled: false });
}

describe('Widget pages: signing in inside a scan', function () {
  this.timeout(90_000);
  const { newPage } = useBrowser('Widget sign-in');
  let scan: ScanGateway;

  before(async () => {
    scan = await startScanGateway();
  });

  after(async () => {
    await scan?.close();
  });

  it("under the staff policy the widget asks for a user, refuses a wrong password, then books in that user's name", async () => {
    const company = await buildCompany();
    const location = await buildLocation(company, 'Main store');
    const product = await buildProduct(company, { name: 'Blue widget', sku: unique('BW') });
    await addStock(company, product.id, location.id, 10);
    const code = await configuredCode(company, product.id);
    expect((await patch('/api/v1/scan-settings/', { policy: 'staff' }, { token: company.token })).status).to.equal(200);
    const member = await buildUser(company);

    const bp = await newPage();
    const { page } = bp;
    await page.goto(scan.scanUrl(code));
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await screenshotChecked(page, 'widget-sign-in', WIDGET_CHECKS);
    await signInToScan(page, { username: member.username, password: 'wrong-password' });
    await waitForText(page, '.sign-in .notice-error', 'Wrong username or password');
    await signInToScan(page, member);
    await page.getByRole('heading', { level: 2, name: product.name }).waitFor();
    await waitForText(page, '.signed-in', `Signed in as ${member.username}`);

    await page.locator('.booking .segment label', { hasText: /^Subtract$/ }).click();
    await page.getByLabel('Quantity (pcs)').fill('2');
    await page.getByRole('button', { name: 'Subtract stock' }).click();
    await waitForText(page, '.booking-notice .notice-ok', 'New stock: 8 pcs');
    expect(await balanceOf(product.id, location.id)).to.equal(8);

    const ledger = await get(`/api/v1/movements/?product_id=${product.id}&kind=SUBTRACT`, { token: company.token });
    expect(ledger.body.results).to.have.length(1);
    expect(ledger.body.results[0].actor).to.deep.include({ name: `QR code ${code}`, qr_code: code });
    expect(ledger.body.results[0].actor.user).to.deep.include({ id: member.id, username: member.username });
    expect(problems(bp)).to.deep.equal([]);
  });

  it('under the staff policy a visitor may just look: the stock shows, a booking says to sign in', async () => {
    const company = await buildCompany();
    const location = await buildLocation(company, 'Main store');
    const product = await buildProduct(company, { name: 'Red widget', sku: unique('RW') });
    await addStock(company, product.id, location.id, 10);
    const code = await configuredCode(company, product.id);
    expect((await patch('/api/v1/scan-settings/', { policy: 'staff' }, { token: company.token })).status).to.equal(200);

    const bp = await newPage();
    const { page } = bp;
    await page.goto(scan.scanUrl(code));
    await page.getByRole('button', { name: 'Just look at the stock' }).click();
    await page.getByRole('heading', { level: 2, name: product.name }).waitFor();
    expect(await page.locator('.total-stock').textContent()).to.equal('10 pcs');
    await page.locator('.booking .segment label', { hasText: /^Subtract$/ }).click();
    await page.getByLabel('Quantity (pcs)').fill('1');
    await page.getByRole('button', { name: 'Subtract stock' }).click();
    await waitForText(page, '.booking-notice .notice-error', 'Sign in as a user of the company');
    expect(await balanceOf(product.id, location.id)).to.equal(10);
  });
});

/**
 * The dashboard's Scanning screen (docs/api/scanning.md) in headless Chromium: an admin sets the scan policy
 * and the scan key lifetime, sees the scan sessions and revokes one (its key answers 401 at once); the
 * Movements screen names who booked (the scanned code, the user) instead of ids.
 */
import { expect } from 'chai';
import { api, get, post } from '../../support/api';
import { BrowserPage, screenshotChecked, useBrowser } from '../../support/browser';
import { addStock, buildCompany, buildLocation, buildProduct, configuredCode } from '../../support/builders';
import { DASHBOARD_CHECKS, confirm, dashboardUrl, navigate, notice, settled, signInWithKeyboard, unexpectedProblems } from '../../support/dashboard-page';

async function scanKey(code: string): Promise<string> {
  const scan = await api('GET', `/go/${code}/`);
  const token = new URL(scan.headers.get('location')!).searchParams.get('token');
  const res = await post('/api/v1/widget/exchange_token/', { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.api_key;
}

describe('dashboard (browser): scanning', function () {
  this.timeout(90_000);
  const chromium = useBrowser('dashboard scanning');
  let bp: BrowserPage;

  beforeEach(async () => {
    bp = await chromium.newPage();
  });

  it('sets the scan policy and lifetime, lists scan sessions, revokes one, and the ledger names the scanned code', async () => {
    const company = await buildCompany();
    const location = await buildLocation(company, 'Main store');
    const product = await buildProduct(company, { name: 'Blue widget' });
    await addStock(company, product.id, location.id, 10);
    const code = await configuredCode(company, product.id);
    const key = await scanKey(code);
    const booked = await post(`/api/v1/widget/${product.id}/transaction/`, { operation: 'subtract', quantity: 1, location_id: location.id }, { apiKey: key });
    expect(booked.status, JSON.stringify(booked.body)).to.equal(200);

    const { page } = bp;
    await page.goto(dashboardUrl());
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await navigate(page, 'Scanning');
    await page.locator('table.data tbody', { hasText: code }).waitFor();
    expect(await page.locator('table.data tbody').textContent()).to.include('book');

    // The settings: staff, four hours.
    const form = page.getByRole('form', { name: 'Scan settings' });
    await form.getByLabel('What a scan may do').selectOption('staff');
    await form.getByLabel('Scan key lifetime (hours)').fill('4');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await notice(page, 'Scan settings saved.');
    expect((await get('/api/v1/scan-settings/', { token: company.token })).body).to.deep.equal({ policy: 'staff', key_lifetime_seconds: 4 * 3600 });
    await screenshotChecked(page, 'scanning', DASHBOARD_CHECKS);

    // Revoking the session: the key stops at once.
    await page.getByRole('button', { name: `Revoke the scan of ${code}` }).click();
    await confirm(page, 'Revoke session');
    await notice(page, `Scan session of ${code} revoked.`);
    await settled(page);
    expect((await get('/api/v1/widget/', { apiKey: key })).status).to.equal(401);
    await page.getByText('No scan sessions match.').waitFor();

    // The ledger names who booked.
    await navigate(page, 'Movements');
    await page.locator('table.data tbody', { hasText: `QR code ${code}` }).waitFor();
    expect(await page.locator('table.data tbody').textContent()).to.include('API key');
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });
});

/**
 * The dashboard's audit log screen and the viewer role (docs/api/roles-and-audit-log.md), in headless
 * Chromium at desktop and phone sizes: an admin gives a user the viewer role from the users screen and reads
 * that change in the audit log, filtered; the viewer sees the data, the read-only note, and no write controls.
 */
import { expect } from 'chai';
import { BrowserPage, DESKTOP, PHONE, screenshotChecked, useBrowser } from '../../support/browser';
import { buildCompany, buildLocation, buildProduct, buildUser, unique } from '../../support/builders';
import { DASHBOARD_CHECKS, goTo, navigate, notice, settled, signInWithKeyboard, unexpectedProblems } from '../../support/dashboard-page';

describe('dashboard (browser): roles and the audit log', function () {
  this.timeout(120_000);
  const chromium = useBrowser('dashboard (browser): roles and the audit log');
  let bp: BrowserPage;
  beforeEach(async () => {
    bp = await chromium.newPage();
  });

  it('lets an admin make a user a viewer and read that change in the audit log, filtered (desktop)', async () => {
    const company = await buildCompany();
    const user = await buildUser(company, { role: 'member' });
    await buildProduct(company, { name: 'Audited widget' });
    const { page } = bp;
    await page.setViewportSize(DESKTOP);
    await signInWithKeyboard(page, company.admin.username, company.admin.password);

    await navigate(page, 'Users');
    await page.getByRole('button', { name: `Edit ${user.username}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Role').selectOption('viewer');
    await dialog.getByRole('button', { name: 'Save user' }).click();
    await notice(page, `User ${user.username} saved.`);
    await settled(page);
    const row = page.locator('table.data tbody tr', { hasText: user.username });
    expect(await row.locator('.badge').first().textContent()).to.equal('viewer');

    await navigate(page, 'Audit log');
    const entries = page.locator('table.data tbody tr');
    expect(await entries.first().textContent()).to.include('viewer');
    expect(await entries.first().textContent()).to.include('member → viewer');
    await page.getByLabel('Record').selectOption('product_model');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await settled(page);
    await page.waitForFunction(() => !(globalThis as any).document.querySelector('table.data tbody')?.textContent.includes('member → viewer'), undefined, {
      timeout: 10_000,
    });
    expect(await entries.first().textContent()).to.include('Audited widget');
    await screenshotChecked(page, 'audit-log', DASHBOARD_CHECKS);
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });

  it('shows a viewer the data with a read-only note and no write controls, and no audit log (phone)', async () => {
    const company = await buildCompany();
    await buildProduct(company, { name: 'Readable product' });
    await buildLocation(company, unique('Readable place'));
    const viewer = await buildUser(company, { role: 'viewer' });
    const { page } = bp;
    await page.setViewportSize(PHONE);
    await signInWithKeyboard(page, viewer.username, viewer.password);

    await navigate(page, 'Products');
    await page.locator('.read-only-note').waitFor();
    expect(await page.locator('.read-only-note').textContent()).to.include('read-only');
    expect(await page.locator('table.data tbody').textContent()).to.include('Readable product');
    expect(await page.locator('details.panel', { hasText: 'New product' }).isVisible()).to.equal(false);
    expect(await page.locator('table.data .col-actions').filter({ visible: true }).count()).to.equal(0);
    await screenshotChecked(page, 'viewer-products', DASHBOARD_CHECKS);

    await navigate(page, 'Locations');
    expect(await page.locator('details.panel', { hasText: 'New location' }).isVisible()).to.equal(false);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).count()).to.equal(0);
    await goTo(page, '#/audit-log', 'Audit log');
    expect(await page.locator('.screen').textContent()).to.include('Only administrators');
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });
});

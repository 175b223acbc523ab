/**
 * The dashboard's channels screen with a channel the circuit breaker paused, in headless Chromium: the list
 * and the channel show it as paused, since when and why, and "Resume" lets its deliveries go again.
 */
import { expect } from 'chai';
import { get } from '../../support/api';
import { BrowserPage, PHONE, screenshotChecked, useBrowser } from '../../support/browser';
import { buildCompany } from '../../support/builders';
import { DASHBOARD_CHECKS, goTo, notice, screenHeading, settled, signInWithKeyboard, unexpectedProblems } from '../../support/dashboard-page';
import { query } from '../../support/sql';
import { buildChannel } from '../monitor/helpers';

describe('dashboard (browser): a paused channel and its "Resume" action', function () {
  this.timeout(120_000);
  const chromium = useBrowser('dashboard (browser): a paused channel');
  let bp: BrowserPage;
  beforeEach(async () => {
    bp = await chromium.newPage();
  });

  it('shows the channel paused with its reason, and resumes it on a phone', async () => {
    const company = await buildCompany();
    const channel = await buildChannel(company, { name: 'Flaky hook' });
    await query(
      `UPDATE notification_channels SET consecutive_failures = 5, paused_at = now(), next_probe_at = now() + interval '1 minute',
              paused_reason = '5 failed attempts in a row; the last one: timed out after 10000 ms' WHERE id = $1`,
      [channel.id],
    );
    const { page } = bp;
    await page.setViewportSize(PHONE);
    await signInWithKeyboard(page, company.admin.username, company.admin.password);

    await goTo(page, '#/channels', 'Notification channels');
    const row = page.locator('table.data tbody tr', { hasText: 'Flaky hook' });
    expect(await row.locator('.badge').textContent()).to.equal('paused');

    await goTo(page, `#/channels/${channel.id}`, 'Channel: Flaky hook');
    const paused = page.locator('.notice', { hasText: 'Paused since' });
    await paused.waitFor();
    expect(await paused.textContent()).to.include('5 failed attempts in a row; the last one: timed out after 10000 ms');
    await screenshotChecked(page, 'channel-paused', DASHBOARD_CHECKS);

    await page.getByRole('button', { name: 'Resume Flaky hook' }).click();
    await notice(page, 'Channel Flaky hook resumed.');
    await paused.waitFor({ state: 'detached' });
    await settled(page);
    expect(await page.locator('dl.facts').textContent()).to.include('active');
    const stored = await get(`/api/v1/notification-channels/${channel.id}/`, { token: company.token });
    expect(stored.body).to.deep.include({ state: 'active', paused_at: null, consecutive_failures: 0 });
    await screenHeading(page, 'Channel: Flaky hook').waitFor();
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });
});

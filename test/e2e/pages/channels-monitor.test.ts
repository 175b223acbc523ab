/**
 * The channels screen of the dashboard in headless Chromium: the panel that says when the monitor last ran and
 * what it did for the company (its own numbers only), and an EMAIL channel, which shows no signing secret but
 * where the console backend's messages are read.
 */
import { expect } from 'chai';
import { loadMonitorSettings, runCheckRules } from '@pi/monitor';
import { useBrowser } from '../../support/browser';
import { addStock, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { goTo, screenHeading, settled, signInWithKeyboard, unexpectedProblems } from '../../support/dashboard-page';
import { system, testDatabaseUrl } from '../../support/hooks';
import { startReceiver } from '../../support/receiver';
import { buildChannel } from '../monitor/helpers';

const monitorSettings = () =>
  loadMonitorSettings({ NODE_ENV: 'test', SECRET_ENCRYPTION_KEY: system().secretEncryptionKey, ALLOW_LOOPBACK_WEBHOOKS: 'true', EMAIL_BACKEND: 'console' });

describe('dashboard (browser): monitor runs and email channels on the channels screen', function () {
  this.timeout(120_000);
  const chromium = useBrowser('dashboard channels screen (browser)');

  it('shows the last run with the company’s own numbers, and an email channel without a secret but with where its emails are read', async () => {
    const company = await buildCompany();
    const other = await buildCompany();
    const bp = await chromium.newPage();
    const { page } = bp;
    await signInWithKeyboard(page, company.admin.username, company.admin.password);

    // Before any run: the panel says how rules get evaluated.
    await goTo(page, '#/channels', 'Notification channels');
    const panel = page.getByRole('region', { name: 'Monitor runs' });
    expect(await panel.textContent())
      .to.include('No monitor run has checked your company yet')
      .and.include('CHECK_RULES_INTERVAL_SECONDS');

    // A run that opens one event for this company (and three for the other, which must not show here).
    const product = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 5 } });
    await addStock(company, product.id, (await buildLocation(company)).id, 1);
    const mail = await buildChannel(company, { name: 'Ops mail', kind: 'EMAIL', recipients: ['ops@example.com'], events: ['TEST'] });
    const receiver = await startReceiver();
    try {
      await buildChannel(company, { name: 'Ops hook', url: receiver.url, events: ['THRESHOLD'] });
      for (let i = 0; i < 3; i++) await buildProduct(other, { engine_config: { engine_type: 'counter', min_stock: 2 } });
      for (const c of [company, other])
        await runCheckRules(system().db.sequelize, testDatabaseUrl(), monitorSettings(), { companyId: c.id, trigger: 'scheduler' });
      expect(receiver.requests).to.have.length(1);
    } finally {
      await receiver.close();
    }

    await goTo(page, '#/products', 'Products');
    await goTo(page, '#/channels', 'Notification channels');
    const text = (await panel.textContent()) ?? '';
    expect(text).to.include('(scheduled by npm start)').and.include('Outcomecompleted');
    expect(text).to.include('Evaluated1 products').and.include('Events1 opened, 0 resolved');
    expect(text).to.include('1 new, 0 due from earlier runs; 1 sent, 0 retrying, 0 failed, 0 queued');
    expect(text).not.to.include('3 products');

    // The email channel: no secret, no rotation, and where console emails are read.
    await page.getByRole('link', { name: 'Ops mail' }).click();
    await screenHeading(page, 'Channel: Ops mail').waitFor();
    await settled(page);
    expect(await page.getByLabel('Signing secret').count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Rotate secret' }).count()).to.equal(0);
    const note = page.getByRole('note');
    expect(await note.textContent())
      .to.include('Emails are not sent')
      .and.include('npm start')
      .and.include('email not sent');
    expect(await page.content()).not.to.include('whsec_');
    expect(mail.secret).to.equal(null);
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });
});

/**
 * The administration dashboard in a real browser (headless Debian Chromium through playwright-core), against
 * the test system, with every request off 127.0.0.1/localhost blocked (support/browser.ts): the journey of
 * issue 7 on a 360 px phone screen, the silent token refresh, the remaining screens, and screenshots of every
 * screen at 360 px and 1280 px under test-artifacts/dashboard/.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { checkRules, loadMonitorSettings } from '@pi/monitor';
import { get, post } from '../../support/api';
import { BrowserPage, DESKTOP, PHONE, saveScreenshot, screenshotChecked, useBrowser } from '../../support/browser';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct, unique } from '../../support/builders';
import {
  DASHBOARD_CHECKS,
  confirm,
  dashboardUrl,
  fieldError,
  goTo,
  localDateTimeIn,
  navigate,
  notice,
  openPanel,
  screenHeading,
  settled,
  signInWithKeyboard,
  signatureOf,
  unexpectedProblems,
} from '../../support/dashboard-page';
import { system, testDatabaseUrl } from '../../support/hooks';
import { Receiver, startReceiver } from '../../support/receiver';

const TOKENS_KEY = 'pi-dashboard.tokens';

const monitorSettings = () =>
  loadMonitorSettings({ NODE_ENV: 'test', SECRET_ENCRYPTION_KEY: system().secretEncryptionKey, ALLOW_LOOPBACK_WEBHOOKS: 'true', EMAIL_BACKEND: 'console' });

async function storedTokens(page: Page): Promise<{ access: string; refresh: string } | null> {
  return JSON.parse((await page.evaluate<string | null>(`sessionStorage.getItem(${JSON.stringify(TOKENS_KEY)})`)) ?? 'null');
}

async function setStoredTokens(page: Page, change: Record<string, string>): Promise<void> {
  await page.evaluate(`(() => {
    const tokens = JSON.parse(sessionStorage.getItem(${JSON.stringify(TOKENS_KEY)}));
    sessionStorage.setItem(${JSON.stringify(TOKENS_KEY)}, JSON.stringify(Object.assign(tokens, ${JSON.stringify(change)})));
  })()`);
}

describe('dashboard (browser)', function () {
  this.timeout(240_000);
  const chromium = useBrowser('dashboard (browser)');
  let bp: BrowserPage;

  beforeEach(async () => {
    bp = await chromium.newPage();
  });

  it('the journey on a phone: sign in, a product refused for its engine config then fixed, a location, stock, a channel tested against a local receiver (secret revealed and rotated), a key created, copied once, rotated and revoked', async () => {
    const company = await buildCompany();
    const receiver: Receiver = await startReceiver();
    const { page } = bp;
    const requestUrls: string[] = [];
    page.on('request', (req) => requestUrls.push(req.url()));
    try {
      await bp.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: system().url });
      await page.setViewportSize(PHONE);
      await signInWithKeyboard(page, company.admin.username, company.admin.password);

      // A product with an engine config the server refuses: each problem is shown next to its field.
      const sku = unique('BOLT');
      let form = await openPanel(page, 'New product');
      await form.getByLabel('SKU').fill(sku);
      await form.getByLabel('Name', { exact: true }).fill('Dashboard bolt');
      await form.getByLabel('Profile (tracking mode)').selectOption('STANDARD');
      await form.getByLabel('Engine type').selectOption('batch');
      await form.getByLabel('Min stock').fill('10');
      await form.getByLabel('Max stock').fill('5');
      await form.getByRole('button', { name: 'Create product' }).click();
      await form.getByRole('alert').filter({ hasText: 'The engine config is invalid.' }).waitFor();
      // In words, not the API's field names (kit/messages.ts).
      expect(await fieldError(form.getByLabel('Engine type'))).to.include("engine type 'batch' does not match profile STANDARD");
      expect(await fieldError(form.getByLabel('Max stock'))).to.include('maximum stock must not be below minimum stock');
      expect(await form.getByLabel('SKU').getAttribute('aria-invalid')).to.equal(null);
      expect((await get(`/api/v1/product-models/?search=${sku}`, { token: company.token })).body.count).to.equal(0);

      // Fixed, it is created with the config as entered (defaults completed by the server).
      await form.getByLabel('Engine type').selectOption('counter');
      await form.getByLabel('Max stock').fill('50');
      await form.getByRole('button', { name: 'Create product' }).click();
      await notice(page, `Product ${sku} created.`);
      await page.locator('td', { hasText: sku }).first().waitFor();
      expect(await form.getByLabel('Engine type').getAttribute('aria-invalid')).to.equal(null);
      const products = (await get(`/api/v1/product-models/?search=${sku}`, { token: company.token })).body.results;
      expect(products).to.have.length(1);
      expect(products[0]).to.include({ sku, name: 'Dashboard bolt', profile: 'STANDARD' });
      expect(products[0].engine_config).to.include({ engine_type: 'counter', min_stock: 10, max_stock: 50, unit: 'pcs', decimals: 0 });
      const productId: string = products[0].id;

      // A location.
      await navigate(page, 'Locations');
      const locationName = unique('Main warehouse');
      form = await openPanel(page, 'New location');
      await form.getByLabel('Name').fill(locationName);
      await form.getByLabel('Type').selectOption('WAREHOUSE');
      await form.getByRole('button', { name: 'Create location' }).click();
      await notice(page, `Location ${locationName} created.`);
      await page.locator('td', { hasText: locationName }).first().waitFor();

      // Stock added: a movement from the company's Inbound location through POST /api/v1/movements/.
      await navigate(page, 'Stock');
      form = page.getByRole('form', { name: 'Book stock' });
      await form.getByLabel('Booking').selectOption('add');
      await form.getByLabel('Product').selectOption({ label: `${sku} — Dashboard bolt` });
      await form.getByLabel('Location', { exact: true }).selectOption({ label: `${locationName} (warehouse)` });
      await form.getByLabel('Quantity').fill('12');
      await form.getByLabel('Reason').fill('first delivery');
      await form.getByRole('button', { name: 'Book', exact: true }).click();
      await notice(page, 'total now 12 pcs');
      await page.locator('td', { hasText: '12 pcs' }).first().waitFor();
      const stock = (await get(`/api/v1/stock/?product_id=${productId}`, { token: company.token })).body.results[0];
      expect(stock.total_quantity).to.equal(12);
      expect(stock.locations.map((l: { location_name: string; quantity: number }) => [l.location_name, l.quantity])).to.deep.equal([[locationName, 12]]);
      const ledger = (await get(`/api/v1/movements/?product_id=${productId}`, { token: company.token })).body.results;
      expect(ledger).to.have.length(1);
      expect(ledger[0]).to.include({ kind: 'ADD', quantity: 12, reason: 'first delivery' });
      expect(ledger[0].actor).to.deep.include({ kind: 'user', id: company.admin.id, name: company.admin.username });

      // A webhook channel to the local receiver; a test send, signed with the secret the page reveals.
      await navigate(page, 'Channels', 'Notification channels');
      const channelName = unique('Ops hook');
      form = await openPanel(page, 'New channel');
      await form.getByLabel('Name').fill(channelName);
      await form.getByLabel('Kind').selectOption('WEBHOOK');
      await form.getByLabel('Webhook URL').fill(receiver.url);
      expect(await form.getByLabel('TEST', { exact: true }).isChecked()).to.equal(true);
      await form.getByRole('button', { name: 'Create channel' }).click();
      await screenHeading(page, `Channel: ${channelName}`).waitFor();
      await settled(page);
      const channelId = decodeURIComponent(new URL(page.url()).hash.replace('#/channels/', ''));

      await page.getByRole('button', { name: 'Send test' }).click();
      await page.locator('.test-result', { hasText: 'DELIVERED' }).waitFor();
      expect(await page.locator('.test-result').textContent()).to.include('HTTP 200');
      expect(receiver.requests).to.have.length(1);
      const secretInput = page.getByLabel('Signing secret', { exact: true });
      expect(await secretInput.getAttribute('type'), 'the secret is masked until revealed').to.equal('password');
      await page.getByRole('button', { name: 'Reveal signing secret' }).click();
      expect(await secretInput.getAttribute('type')).to.equal('text');
      const secret = await secretInput.inputValue();
      expect(secret).to.match(/^whsec_/);
      expect(receiver.requests[0].headers['x-pi-signature']).to.equal(signatureOf(receiver.requests[0].body, secret));
      expect(JSON.parse(receiver.requests[0].body)).to.include({ type: 'TEST' });

      // The delivery is listed with its attempt.
      await page.getByText('Attempts (1)').first().click();
      await page.locator('details.attempts[open]', { hasText: 'HTTP 200' }).waitFor();

      // Rotating the secret: a new one, and the next test is signed with it.
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await confirm(page, 'Rotate secret');
      await notice(page, 'Signing secret rotated.');
      const rotated = await secretInput.inputValue();
      expect(rotated)
        .to.match(/^whsec_/)
        .and.not.equal(secret);
      expect((await get(`/api/v1/notification-channels/${channelId}/`, { token: company.token })).body.secret).to.equal(rotated);
      await page.getByRole('button', { name: 'Send test' }).click();
      await receiver.waitForRequests(2);
      await page.getByText('Attempts (1)').nth(1).waitFor();
      expect(receiver.requests[1].headers['x-pi-signature']).to.equal(signatureOf(receiver.requests[1].body, rotated));
      const deliveries = (await get(`/api/v1/notification-deliveries/?channel_id=${channelId}`, { token: company.token })).body.results;
      expect(deliveries.map((d: { status: string }) => d.status)).to.deep.equal(['DELIVERED', 'DELIVERED']);

      // An API key with write permission, an allowed domain and an expiry; its value is shown once.
      await navigate(page, 'API keys');
      const keyName = unique('Shop key');
      form = await openPanel(page, 'New API key');
      await form.getByLabel('Name').fill(keyName);
      expect(await form.getByLabel('read', { exact: true }).isChecked()).to.equal(true);
      await form.getByLabel('write', { exact: true }).check();
      await form.getByLabel('Allowed domains').fill('shop.example.com');
      const expiry = localDateTimeIn(30);
      await form.getByLabel('Expires at').fill(expiry);
      await form.getByRole('button', { name: 'Create key' }).click();
      let once = page.getByRole('region', { name: `${keyName} created: copy the key now` });
      await once.waitFor();
      const value = await once.getByLabel('Key value', { exact: true }).inputValue();
      expect(value).to.match(/^pik_/);
      const copy = once.getByRole('button', { name: 'Copy key value' });
      await copy.click();
      await page.waitForFunction(() => (globalThis as any).document.querySelector('.once button[aria-label="Copy key value"]')?.textContent === 'Copied');
      expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(value);

      const listed = (await get('/api/v1/api-keys/', { token: company.token })).body.results.find((k: { name: string }) => k.name === keyName);
      expect(listed.permissions).to.deep.equal(['read', 'write']);
      expect(listed.allowed_domains).to.deep.equal(['shop.example.com']);
      expect(new Date(listed.expires_at).getTime()).to.equal(new Date(expiry).getTime());
      expect((await get('/api/v1/widget/locations/', { apiKey: value })).status).to.equal(200);

      await once.getByRole('button', { name: 'I have copied it' }).click();
      await once.waitFor({ state: 'detached' });
      expect(await page.content(), 'the value is gone from the page').not.to.include(value);

      // Rotated: a new value, shown once; the old one fails at once.
      await page.getByRole('button', { name: `Rotate ${keyName}` }).click();
      await confirm(page, 'Rotate key');
      once = page.getByRole('region', { name: `${keyName} rotated: copy the key now` });
      await once.waitFor();
      const rotatedValue = await once.getByLabel('Key value', { exact: true }).inputValue();
      expect(rotatedValue).to.match(/^pik_/).and.not.equal(value);
      expect((await get('/api/v1/widget/locations/', { apiKey: value })).status).to.equal(401);
      expect((await get('/api/v1/widget/locations/', { apiKey: rotatedValue })).status).to.equal(200);
      await once.getByRole('button', { name: 'I have copied it' }).click();

      // Revoked.
      await page.getByRole('button', { name: `Revoke ${keyName}` }).click();
      await confirm(page, 'Revoke key');
      await notice(page, `Key ${keyName} revoked.`);
      expect((await get('/api/v1/widget/locations/', { apiKey: rotatedValue })).status).to.equal(401);

      // Tokens never travel in a URL.
      const tokens = (await storedTokens(page))!;
      expect(requestUrls.filter((u) => u.includes(tokens.access) || u.includes(tokens.refresh))).to.deep.equal([]);
      expect(unexpectedProblems(bp, [400])).to.deep.equal([]);
    } finally {
      await receiver.close();
    }
  });

  it('refreshes a refused access token silently and retries; asks to sign in again once the refresh token is refused too', async () => {
    const company = await buildCompany();
    const { page } = bp;
    const refreshes: number[] = [];
    page.on('response', (res) => {
      if (res.url().endsWith('/api/token/refresh/')) refreshes.push(res.status());
    });
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await navigate(page, 'Locations');

    // An access token the gateway refuses (as an expired one is): the screen still loads, after one refresh.
    await setStoredTokens(page, { access: 'not-a-valid-access-token' });
    await page.reload();
    await screenHeading(page, 'Locations').waitFor();
    await settled(page);
    await page.locator('td', { hasText: 'Inbound' }).first().waitFor();
    expect(refreshes).to.deep.equal([200]);
    const tokens = (await storedTokens(page))!;
    expect(tokens.access).to.not.equal('not-a-valid-access-token');
    expect((await get('/api/v1/users/me/', { token: tokens.access })).body.username).to.equal(company.admin.username);

    // Both refused: back to the sign-in form, with the reason.
    await setStoredTokens(page, { access: 'not-a-valid-access-token', refresh: 'not-a-valid-refresh-token' });
    await page.reload();
    await page.getByText('Your session has ended. Please sign in again.').waitFor();
    expect(await page.getByLabel('Username').isVisible()).to.equal(true);
    expect(await storedTokens(page)).to.equal(null);
    expect(refreshes).to.deep.equal([200, 401]);

    // Signing out forgets the tokens.
    await signInWithKeyboard(page, company.admin.username, company.admin.password);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    expect(await storedTokens(page)).to.equal(null);
    expect(unexpectedProblems(bp, [401])).to.deep.equal([]);
  });

  describe('the other screens', () => {
    let company: TestCompany;
    let low: { id: string; sku: string };
    let high: { id: string; sku: string };
    let receiver: Receiver;
    let member: { username: string; password: string };
    let central: { id: string; name: string };
    let glue: { id: string; sku: string };
    let drill: { id: string; sku: string };
    let lot: string;

    before(async () => {
      company = await buildCompany();
      receiver = await startReceiver();
      const location = await buildLocation(company, 'Central warehouse');
      central = location;
      // Two products below their min_stock: a monitor run opens one THRESHOLD event each.
      low = await buildProduct(company, { sku: unique('LOW'), name: 'Hex nut M8', engine_config: { engine_type: 'counter', min_stock: 10 } });
      high = await buildProduct(company, { sku: unique('WASH'), name: 'Washer 8 mm', engine_config: { engine_type: 'counter', min_stock: 20 } });
      await addStock(company, low.id, location.id, 3);
      await addStock(company, high.id, location.id, 5);
      const batchProduct = await buildProduct(company, { profile: 'BATCH', name: 'Glue 50 ml', sku: unique('GLUE') });
      glue = batchProduct;
      lot = unique('LOT');
      await addStock(company, batchProduct.id, location.id, 8, { batch: { code: lot, expiration_date: '2031-05-01' } });
      const serialized = await buildProduct(company, { profile: 'SERIALIZED', name: 'Drill', sku: unique('DRILL') });
      drill = serialized;
      await addStock(company, serialized.id, location.id, 2, { serial_numbers: ['SN-0001', 'SN-0002'] });
      await post(
        '/api/v1/work-orders/',
        { number: 'WO-1001', title: 'Assemble shelf', product_id: low.id, quantity: 4, due_date: '2031-01-15' },
        { token: company.token },
      );
      await post(
        '/api/v1/monitoring-rules/',
        {
          product_id: batchProduct.id,
          trigger_type: 'DATE_OFFSET',
          condition_config: { date_field: 'expiration_date', days_offset: 30 },
          severity: 'CRITICAL',
          name: 'Glue expiry',
        },
        { token: company.token },
      );
      const channel = await post(
        '/api/v1/notification-channels/',
        { name: 'Ops hook', kind: 'WEBHOOK', url: receiver.url, events: ['THRESHOLD', 'TEST'] },
        { token: company.token },
      );
      expect(channel.status, JSON.stringify(channel.body)).to.equal(201);
      member = { username: unique('member'), password: 'member-password-1' };
      await post('/api/v1/users/', { ...member, email: 'member@example.com' }, { token: company.token });
      const run = await checkRules(system().db.sequelize, testDatabaseUrl(), monitorSettings(), { companyId: company.id });
      expect(run.events_opened).to.equal(2);
    });
    after(async () => {
      await receiver?.close();
    });

    it('events are resolved and ignored; a product import is dry-run, refused per row, then imported; QR codes are generated with their label sheet; the export downloads', async () => {
      const { page } = bp;
      await signInWithKeyboard(page, company.admin.username, company.admin.password);

      // Events: the two OPEN ones; one resolved, one ignored.
      await navigate(page, 'Events');
      await page.locator('td', { hasText: low.sku }).first().waitFor();
      await page.getByRole('button', { name: new RegExp(`^Resolve event: .*Hex nut M8`) }).click();
      await notice(page, 'Event resolved.');
      await page.getByRole('button', { name: new RegExp(`^Ignore event: .*Washer 8 mm`) }).click();
      await notice(page, 'Event ignored.');
      const events = (await get('/api/v1/events/', { token: company.token })).body.results as { product_id: string; status: string }[];
      expect(Object.fromEntries(events.map((e) => [e.product_id, e.status]))).to.deep.equal({ [low.id]: 'RESOLVED', [high.id]: 'IGNORED' });

      // Import: a dry run writes nothing; a bad row is named with its field; then the import.
      await navigate(page, 'Import & export');
      const before = (await get('/api/v1/product-models/', { token: company.token })).body.count;
      const form = page.getByRole('form', { name: 'Import products' });
      const csv = (rows: string[]) => ['sku,name,profile,engine_type,unit,decimals', ...rows].join('\n');
      const imported = [unique('IMP'), unique('IMP')];
      await form
        .getByLabel('Or paste the content')
        .fill(csv([`${imported[0]},Cable tie,STANDARD,counter,pcs,0`, `${imported[1]},Rope,DIMENSIONAL,dimensional,m,2`]));
      expect(await form.getByLabel('Dry run: check only, import nothing').isChecked()).to.equal(true);
      await form.getByRole('button', { name: 'Import' }).click();
      await page.locator('.import-outcome', { hasText: 'Dry run passed: 2 product(s) would be imported.' }).waitFor();
      expect((await get('/api/v1/product-models/', { token: company.token })).body.count).to.equal(before);

      await form
        .getByLabel('Or paste the content')
        .fill(csv([`${imported[0]},Cable tie,STANDARD,counter,pcs,0`, `${unique('BAD')},Rope,DIMENSIONAL,dimensional,parsec,2`]));
      await form.getByRole('button', { name: 'Import' }).click();
      const problems = page.locator('.import-outcome table');
      await problems.waitFor();
      expect((await problems.locator('tbody tr').first().textContent()) ?? '')
        .to.include('2')
        .and.include('unit');

      await form
        .getByLabel('Or paste the content')
        .fill(csv([`${imported[0]},Cable tie,STANDARD,counter,pcs,0`, `${imported[1]},Rope,DIMENSIONAL,dimensional,m,2`]));
      await form.getByLabel('Dry run: check only, import nothing').uncheck();
      await form.getByRole('button', { name: 'Import' }).click();
      await page.locator('.import-outcome', { hasText: '2 product(s) imported.' }).waitFor();
      expect((await get('/api/v1/product-models/', { token: company.token })).body.count).to.equal(before + 2);

      // The export downloads as a file.
      const [exported] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download export' }).click()]);
      expect(exported.suggestedFilename()).to.match(/^export-.*\.json$/);
      const document = JSON.parse(fs.readFileSync(await exported.path(), 'utf8'));
      expect(document.product_models.map((p: { sku: string }) => p.sku)).to.include.members([low.sku, ...imported]);
      await page.locator('.export-status', { hasText: 'Downloaded' }).waitFor();

      // QR codes: a batch of three, and its label sheet as a PDF.
      await navigate(page, 'QR codes');
      const generate = page.getByRole('form', { name: 'Generate QR codes' });
      await generate.getByLabel('How many codes').fill('3');
      await generate.getByRole('button', { name: 'Generate codes' }).click();
      await page.getByText('3 new code(s)').waitFor();
      const codes = (await get('/api/v1/qr-codes/?status=VIRGIN', { token: company.token })).body.results as { code: string }[];
      expect(codes).to.have.length(3);
      for (const { code } of codes) expect(await page.locator('.generated').textContent()).to.include(code);
      const [sheet] = await Promise.all([
        page.waitForEvent('download'),
        page.locator('.generated').getByRole('button', { name: 'Download label sheet (PDF)' }).click(),
      ]);
      expect(
        fs
          .readFileSync(await sheet.path())
          .subarray(0, 5)
          .toString(),
      ).to.equal('%PDF-');
      await page.locator('.generated').getByRole('button', { name: 'Preview label sheet' }).click();
      await page.getByRole('dialog').locator('svg.label-svg').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

      expect(unexpectedProblems(bp, [400])).to.deep.equal([]);
    });

    it('the forms of the other screens: a product edited, a location nested, stock removed from a batch and an item transferred, an item, a batch, a work order through its statuses, a rule, a user, the ledger filtered', async () => {
      const { page } = bp;
      const token = company.token;
      await signInWithKeyboard(page, company.admin.username, company.admin.password);

      // A product renamed in its dialog.
      await page.getByRole('button', { name: `Edit ${low.sku}` }).click();
      let dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name', { exact: true }).fill('Hex nut M8 zinc');
      await dialog.getByRole('button', { name: 'Save product' }).click();
      await dialog.waitFor({ state: 'detached' });
      await notice(page, `Product ${low.sku} saved.`);
      expect((await get(`/api/v1/product-models/${low.id}/`, { token })).body).to.include({ name: 'Hex nut M8 zinc' });

      // A vehicle, renamed and put under the warehouse.
      await navigate(page, 'Locations');
      let form = await openPanel(page, 'New location');
      await form.getByLabel('Name').fill('Van 1');
      await form.getByLabel('Type').selectOption('VEHICLE');
      await form.getByRole('button', { name: 'Create location' }).click();
      await notice(page, 'Location Van 1 created.');
      await page.getByRole('button', { name: 'Edit Van 1' }).click();
      dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill('Van 2');
      await dialog.getByLabel('Parent location').selectOption({ label: 'Central warehouse (warehouse)' });
      await dialog.getByRole('button', { name: 'Save location' }).click();
      await notice(page, 'Location Van 2 saved.');
      const van = (await get('/api/v1/locations/?type=VEHICLE', { token })).body.results[0];
      expect(van).to.include({ name: 'Van 2', parent_id: central.id });

      // Stock: 3 of the glue out of its batch; one drill, picked by serial number, into the van.
      await navigate(page, 'Stock');
      form = page.getByRole('form', { name: 'Book stock' });
      await form.getByLabel('Booking').selectOption('remove');
      await form.getByLabel('Product').selectOption({ label: `${glue.sku} — Glue 50 ml` });
      await form.getByLabel('Location', { exact: true }).selectOption({ label: 'Central warehouse (warehouse)' });
      const batch = (await get(`/api/v1/batches/?product_id=${glue.id}`, { token })).body.results[0];
      await form.getByLabel('Batch', { exact: true }).locator(`option[value="${batch.id}"]`).waitFor({ state: 'attached' });
      await form.getByLabel('Batch', { exact: true }).selectOption(batch.id);
      await form.getByLabel('Quantity').fill('3');
      await form.getByRole('button', { name: 'Book', exact: true }).click();
      await notice(page, 'total now 5 pcs');
      expect((await get(`/api/v1/batches/${batch.id}/`, { token })).body).to.include({ code: lot, quantity: 5 });

      await form.getByLabel('Booking').selectOption('transfer');
      await form.getByLabel('Product').selectOption({ label: `${drill.sku} — Drill` });
      await form.getByLabel('From location').selectOption({ label: 'Central warehouse (warehouse)' });
      await form.getByLabel('To location').selectOption({ label: '\u00a0\u00a0\u00a0└ Van 2 (vehicle)' }); // Van 2 is under Central warehouse: the picker indents it.
      await form.getByLabel('Items', { exact: true }).locator('option', { hasText: 'SN-0001' }).waitFor({ state: 'attached' });
      await form.getByLabel('Items', { exact: true }).selectOption({ label: 'SN-0001' });
      await form.getByLabel('Quantity').fill('');
      await form.getByRole('button', { name: 'Book', exact: true }).click();
      await notice(page, `Booked ${drill.sku}`);
      const inVan = (await get(`/api/v1/items/?location_id=${van.id}`, { token })).body.results.map((i: { serial_number: string }) => i.serial_number);
      expect(inVan).to.deep.equal(['SN-0001']);

      // Items: one more drill.
      await navigate(page, 'Items');
      form = await openPanel(page, 'New item');
      await form.getByLabel('Product').selectOption({ label: `${drill.sku} — Drill` });
      await form.getByLabel('Location').selectOption({ label: 'Central warehouse (warehouse)' });
      await form.getByLabel('Serial number').fill('SN-0003');
      await form.getByRole('button', { name: 'Add item' }).click();
      await notice(page, 'Item SN-0003 added and booked in.');
      expect((await get(`/api/v1/items/?product_id=${drill.id}`, { token })).body.count).to.equal(3);

      // Batches: a new one, its expiry corrected.
      await navigate(page, 'Batches');
      form = await openPanel(page, 'New batch');
      await form.getByLabel('Product').selectOption({ label: `${glue.sku} — Glue 50 ml` });
      await form.getByLabel('Batch code').fill('LOT-NEW');
      await form.getByLabel('Expiration date').fill('2032-02-01');
      await form.getByRole('button', { name: 'Create batch' }).click();
      await notice(page, 'Batch LOT-NEW created.');
      await page.getByRole('button', { name: 'Edit batch LOT-NEW' }).click();
      dialog = page.getByRole('dialog');
      await dialog.getByLabel('Expiration date').fill('2032-03-01');
      await dialog.getByRole('button', { name: 'Save batch' }).click();
      await notice(page, 'Batch LOT-NEW saved.');
      const batches = (await get(`/api/v1/batches/?product_id=${glue.id}`, { token })).body.results as { code: string; expiration_date: string }[];
      expect(batches.find((b) => b.code === 'LOT-NEW')?.expiration_date).to.equal('2032-03-01');

      // Work orders: created, started, done (and then no more moves or edits).
      await navigate(page, 'Work orders');
      form = await openPanel(page, 'New work order');
      await form.getByLabel('Number').fill('WO-2001');
      await form.getByLabel('Title').fill('Paint the van');
      await form.getByRole('button', { name: 'Create work order' }).click();
      await notice(page, 'Work order WO-2001 created.');
      await page.getByRole('button', { name: 'Start work order WO-2001' }).click();
      await notice(page, 'Work order WO-2001 is IN_PROGRESS.');
      await page.getByRole('button', { name: 'Done work order WO-2001' }).click();
      await notice(page, 'Work order WO-2001 is DONE.');
      await settled(page);
      expect(await page.getByRole('button', { name: /work order WO-2001$/ }).count()).to.equal(0);
      const orders = (await get('/api/v1/work-orders/?status=DONE', { token })).body.results as { number: string }[];
      expect(orders.map((o) => o.number)).to.deep.equal(['WO-2001']);

      // Rules: a THRESHOLD rule, then disabled.
      await navigate(page, 'Rules', 'Monitoring rules');
      form = await openPanel(page, 'New rule');
      await form.getByLabel('Product').selectOption({ label: `${high.sku} — Washer 8 mm` });
      await form.getByLabel('Trigger').selectOption('THRESHOLD');
      await form.getByLabel('Name').fill('Washer max');
      await form.getByLabel('Alert above (max)').fill('100');
      await form.getByRole('button', { name: 'Create rule' }).click();
      await notice(page, 'Rule created.');
      await page.getByRole('button', { name: 'Disable rule Washer max' }).click();
      await notice(page, 'Rule disabled.');
      const rules = (await get(`/api/v1/monitoring-rules/?product_id=${high.id}&source=rule`, { token })).body.results;
      expect(rules).to.have.length(1);
      expect(rules[0]).to.deep.include({ name: 'Washer max', trigger_type: 'THRESHOLD', is_active: false, condition_config: { max: 100 } });

      // Users: a member, made admin.
      await navigate(page, 'Users');
      const username = unique('clerk');
      form = await openPanel(page, 'New user');
      await form.getByLabel('Username').fill(username);
      await form.getByLabel('Password').fill('clerk-password-1');
      await form.getByRole('button', { name: 'Create user' }).click();
      await notice(page, `User ${username} created.`);
      await page.getByRole('button', { name: `Edit ${username}` }).click();
      dialog = page.getByRole('dialog');
      await dialog.getByLabel('Role').selectOption('admin');
      await dialog.getByRole('button', { name: 'Save user' }).click();
      await notice(page, `User ${username} saved.`);
      const users = (await get('/api/v1/users/', { token })).body.results as { username: string; role: string }[];
      expect(users.find((u) => u.username === username)?.role).to.equal('admin');

      // The ledger, filtered to transfers.
      await navigate(page, 'Movements');
      const filters = page.getByRole('form', { name: 'Filter movements' });
      await filters.getByLabel('Kind').selectOption('TRANSFER');
      await filters.getByRole('button', { name: 'Apply filters' }).click();
      await page.locator('.list-status', { hasText: '1–1 of 1' }).waitFor();
      expect(await page.locator('table.data tbody').textContent()).to.include('Central warehouse → Van 2');

      expect(unexpectedProblems(bp)).to.deep.equal([]);
    });

    it("a member sees no administrators' screens (channels, deliveries, API keys, users)", async () => {
      const { page } = bp;
      await signInWithKeyboard(page, member.username, member.password);
      const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
      expect(links).to.include.members(['Products', 'Stock', 'Rules', 'Events']);
      expect(links).not.to.include.any.members(['Channels', 'Deliveries', 'API keys', 'Users']);
      await goTo(page, '#/api-keys', 'API keys');
      await page.getByText('Only administrators of the company can use this screen.').waitFor();
      expect(unexpectedProblems(bp)).to.deep.equal([]);
    });

    it('every screen at 360 px and 1280 px: labelled controls, no sideways scrolling on a phone (screenshots in test-artifacts/dashboard/)', async () => {
      const { page } = bp;
      await page.setViewportSize(PHONE);
      await page.goto(dashboardUrl());
      await page.getByLabel('Username').waitFor();
      await screenshotChecked(page, 'sign-in', DASHBOARD_CHECKS);
      await signInWithKeyboard(page, company.admin.username, company.admin.password);

      // The menu on a phone.
      await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Stock', exact: true }).waitFor();
      await saveScreenshot(page, 'dashboard/menu-360');
      await page.getByRole('button', { name: 'Menu' }).click();

      const screens: [string, string, string | RegExp][] = [
        ['products', '#/products', 'Products'],
        ['stock', '#/stock', 'Stock'],
        ['movements', '#/movements', 'Movements'],
        ['locations', '#/locations', 'Locations'],
        ['items', '#/items', 'Items'],
        ['batches', '#/batches', 'Batches'],
        ['work-orders', '#/work-orders', 'Work orders'],
        ['qr-codes', '#/qr-codes', 'QR codes'],
        ['rules', '#/rules', 'Monitoring rules'],
        ['events', '#/events?status=', 'Events'],
        ['channels', '#/channels', 'Notification channels'],
        ['deliveries', '#/deliveries', 'Deliveries'],
        ['api-keys', '#/api-keys', 'API keys'],
        ['users', '#/users', 'Users'],
        ['import-export', '#/import-export', 'Import & export'],
      ];
      for (const [name, hash, heading] of screens) {
        await goTo(page, hash, heading);
        await screenshotChecked(page, name, DASHBOARD_CHECKS);
      }

      // A channel's page, and the product form with the server's errors, at both widths.
      await goTo(page, '#/channels', 'Notification channels');
      await page.getByRole('link', { name: 'Ops hook' }).click();
      await screenHeading(page, 'Channel: Ops hook').waitFor();
      await page.getByRole('button', { name: 'Send test' }).click();
      await page.locator('.test-result', { hasText: 'DELIVERED' }).waitFor();
      await page.getByText('Attempts (1)').first().click();
      await screenshotChecked(page, 'channel', DASHBOARD_CHECKS);

      await goTo(page, '#/products', 'Products');
      const form = await openPanel(page, 'New product');
      await form.getByLabel('SKU').fill(unique('ERR'));
      await form.getByLabel('Name', { exact: true }).fill('Refused product');
      await form.getByLabel('Profile (tracking mode)').selectOption('DIMENSIONAL');
      await form.getByLabel('Engine type').selectOption('counter');
      await form.getByRole('button', { name: 'Create product' }).click();
      await form.getByRole('alert').waitFor();
      expect(await fieldError(form.getByLabel('Unit'))).to.include('unit');
      await screenshotChecked(page, 'product-errors', DASHBOARD_CHECKS);

      await page.setViewportSize(DESKTOP);
      expect(unexpectedProblems(bp, [400])).to.deep.equal([]);
    });
  });
});

/**
 * Issue 17, the remaining screens: with a company of 120 products and 62 locations, the Movements, Stock, Rules,
 * QR codes and Locations screens and a product's page never ask for more than one page of 50 products or
 * locations and no answer holds them all; their tables show names (never ids), and their pickers find a record
 * by typing. Filters read from links (`#/stock?product_id=…`) still apply. In real Chromium at 1280 px and 360 px.
 */
import { expect } from 'chai';
import type { Locator, Page, Request } from 'playwright-core';
import { get, patch, post } from '../../support/api';
import { BrowserPage, DESKTOP, PHONE, screenshotChecked, useBrowser } from '../../support/browser';
import { TestCompany, addStock, buildCompany, buildProduct, configuredCode, generateCode, unique } from '../../support/builders';
import {
  DASHBOARD_CHECKS,
  expectOptions,
  goTo,
  navigate,
  notice,
  openPanel,
  settled,
  signInWithKeyboard,
  unexpectedProblems,
} from '../../support/dashboard-page';

const PRODUCTS = 120;
const LOCATIONS = 60; // and the company's two virtual ones
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const LISTS = ['/api/v1/product-models/', '/api/v1/locations/'];

interface Lookup {
  path: string;
  search: string | null;
  pageSize: number;
  results: Promise<number>;
}

/** The product and location list requests the page sends, with their page size and how many records each answered. */
function recordLookups(page: Page): Lookup[] {
  const seen: Lookup[] = [];
  page.on('request', (r: Request) => {
    const url = new URL(r.url());
    if (r.method() !== 'GET' || !LISTS.includes(url.pathname)) return;
    seen.push({
      path: url.pathname,
      search: url.searchParams.get('search'),
      pageSize: Number(url.searchParams.get('page_size') ?? 0),
      results: r.response().then(async (res) => ((await res?.json()) as { results: unknown[] } | undefined)?.results.length ?? 0),
    });
  });
  return seen;
}

/** No request asked for more than 50, and no answer held every product or every location. */
async function expectPagedLookups(lookups: Lookup[], what: string): Promise<void> {
  expect(lookups.length, `${what}: the screen asks the lists at all`).to.be.greaterThan(0);
  const sizes = await Promise.all(lookups.map((l) => l.results));
  const asked = lookups.map((l, i) => `${l.path}?page_size=${l.pageSize}&search=${l.search ?? ''} → ${sizes[i]}`);
  expect(
    lookups.every((l) => l.pageSize > 0 && l.pageSize <= 50),
    `${what}: ${asked.join(', ')}`,
  ).to.equal(true);
  for (const [path, total] of [
    [LISTS[0], PRODUCTS],
    [LISTS[1], LOCATIONS + 2],
  ] as const) {
    const answered = sizes.filter((_, i) => lookups[i].path === path);
    if (answered.length) expect(Math.max(...answered), `${what}: no answer holds all of ${path}`).to.be.below(total);
  }
}

/** Types into the search box of the picker `select` (inside `scope`) and waits for an option holding `wanted`. */
async function findByTyping(page: Page, scope: Locator, name: string, text: string, wanted: string): Promise<string[]> {
  const select = scope.locator(`select[name="${name}"]`);
  const field = scope.locator('.field', { has: page.locator(`select[name="${name}"]`) });
  await field.getByRole('searchbox', { name: 'Search', exact: true }).pressSequentially(text, { delay: 20 });
  return expectOptions(page, select, (l) => l.some((x) => x.includes(wanted)), `typing "${text}" finds ${wanted}`);
}

/** The table's text once every name cell was read: no id, not even a short one, is left in it. */
async function tableText(page: Page): Promise<string> {
  await page.locator('table tbody tr').first().waitFor();
  await page.waitForFunction(
    () => Array.from((globalThis as any).document.querySelectorAll('table .ref') as any[]).every((el: any) => el.textContent !== el.dataset.id.slice(0, 8)),
    undefined,
    { timeout: 10_000 },
  );
  const text = (await page.locator('table tbody').first().innerText()).trim();
  expect(text).to.not.match(UUID);
  const shortIds = await page.locator('table .ref').evaluateAll((els) => els.filter((el: any) => el.textContent === el.dataset.id.slice(0, 8)).length);
  expect(shortIds, 'every name cell shows a name').to.equal(0);
  return text;
}

describe('dashboard: pickers that search and names instead of ids on every screen (browser)', function () {
  this.timeout(300_000);
  const chromium = useBrowser('pickers everywhere (browser)');
  let bp: BrowserPage;
  let company: TestCompany;
  const tag = unique('pe').toLowerCase();
  let needle: { id: string; sku: string; name: string };
  let hall: string;
  let rack: string;
  let bay: string;
  let order: { id: string; number: string; title: string };
  let item: { id: string; serial_number: string };

  before(async () => {
    company = await buildCompany();
    const products = Array.from({ length: PRODUCTS }, (_, i) => ({
      sku: `${tag}-${String(i).padStart(3, '0')}`,
      name: i === 77 ? `Needle ${tag}` : `Hay ${i} ${tag}`,
      profile: 'STANDARD',
      engine_config: i === 77 ? { engine_type: 'counter', min_stock: 100 } : { engine_type: 'counter' },
    }));
    const imported = await post('/api/v1/product-models/import/', { products }, { token: company.token });
    expect(imported.status, JSON.stringify(imported.body)).to.be.oneOf([200, 201]);
    needle = (await get(`/api/v1/product-models/?search=needle`, { token: company.token })).body.results[0];
    expect(needle.sku).to.equal(`${tag}-077`);
    hall = (await post('/api/v1/locations/', { name: `Hall ${tag}`, type: 'WAREHOUSE' }, { token: company.token })).body.id;
    rack = (await post('/api/v1/locations/', { name: `Rack ${tag}`, type: 'SHELF', parent_id: hall }, { token: company.token })).body.id;
    for (let i = 0; i < LOCATIONS - 2; i++) {
      const res = await post(
        '/api/v1/locations/',
        { name: `Bay ${String(i).padStart(2, '0')} ${tag}`, type: 'STORE', parent_id: i % 2 ? hall : undefined },
        { token: company.token },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      if (i === 0) bay = res.body.id;
    }
    await addStock(company, needle.id, rack, 5);
    await addStock(company, needle.id, bay, 3);
    const rule = await post(
      '/api/v1/monitoring-rules/',
      { product_id: needle.id, trigger_type: 'THRESHOLD', condition_config: { min: 10 }, severity: 'WARNING' },
      { token: company.token },
    );
    expect(rule.status, JSON.stringify(rule.body)).to.equal(201);
    await configuredCode(company, needle.id);
    const wo = await post('/api/v1/work-orders/', { title: `Repair ${tag}` }, { token: company.token });
    expect(wo.status, JSON.stringify(wo.body)).to.equal(201);
    order = wo.body;
    const drill = await buildProduct(company, { profile: 'SERIALIZED', sku: `${tag}-drill`, name: `Drill ${tag}` });
    await addStock(company, drill.id, hall, 1, { serial_numbers: [`SN-${tag}`] });
    item = (await get(`/api/v1/items/?search=${encodeURIComponent(`SN-${tag}`)}`, { token: company.token })).body.results[0];
    expect(item.serial_number).to.equal(`SN-${tag}`);
  });
  beforeEach(async () => {
    bp = await chromium.newPage();
  });

  it('at 1280 px: Movements and Stock name products and locations, filter from links, and their pickers search', async () => {
    const { page } = bp;
    await page.setViewportSize(DESKTOP);
    const lookups = recordLookups(page);
    await signInWithKeyboard(page, company.admin.username, company.admin.password);

    await goTo(page, `#/movements?product_id=${needle.id}`, 'Movements');
    const filters = page.locator('.filters');
    await expectOptions(
      page,
      filters.locator('select[name="product_id"]'),
      (l) => l.includes(`${needle.sku} — ${needle.name}`),
      'the linked product named in its filter',
    );
    expect(await filters.locator('select[name="product_id"]').inputValue()).to.equal(needle.id);
    const movements = await tableText(page);
    expect(movements).to.include(needle.sku).and.include(`Inbound → Rack ${tag}`).and.include(`Inbound → Bay 00 ${tag}`);
    expect(await page.locator('table tbody tr').count(), 'only the linked product').to.equal(2);
    await findByTyping(page, filters, 'location_id', 'rack', `Rack ${tag}`);

    await goTo(page, `#/stock?product_id=${needle.id}`, 'Stock');
    const stockText = await tableText(page);
    expect(stockText).to.include(`Rack ${tag}: 5`);
    expect(await page.locator('table tbody tr').count(), 'only the linked product').to.equal(1);
    expect(await page.locator('.filters select[name="product_id"]').inputValue()).to.equal(needle.id);
    const form = await openPanel(page, 'Book stock');
    // The linked product is chosen in the booking form too, and named.
    await expectOptions(page, form.locator('select[name="product_id"]'), (l) => l.includes(`${needle.sku} — ${needle.name}`), 'the linked product in the form');
    const labels = await findByTyping(page, form, 'location_id', 'rack', `Rack ${tag}`);
    const at = labels.findIndex((l) => l.startsWith(`Hall ${tag}`));
    expect(labels[at + 1], 'the rack under its hall').to.match(new RegExp(`└ Rack ${tag} \\(shelf\\)$`));
    // A booking through the pickers: the product and location found by typing.
    await form.locator('select[name="location_id"]').selectOption(rack);
    await form.getByLabel('Quantity').fill('2');
    await form.getByRole('button', { name: 'Book', exact: true }).click();
    await notice(page, `Booked ${needle.sku}`);
    await settled(page);
    expect(await page.locator('table tbody').first().innerText()).to.include(`Rack ${tag}: 7`);

    await goTo(page, '#/stock?below_min=true', 'Stock');
    expect(await page.locator('.filters select[name="below_min"]').inputValue(), 'the overview link still filters').to.equal('true');
    expect(await tableText(page)).to.include(needle.sku);
    expect(await page.locator('table tbody tr').count(), 'only the product below its minimum').to.equal(1);
    await screenshotChecked(page, 'pickers-everywhere-stock-1280', DASHBOARD_CHECKS);

    await expectPagedLookups(lookups, 'movements and stock');
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });

  it('at 1280 px: Rules and QR codes name their products and targets; codes are linked to a work order found by its number and an item found by its serial; the audit log names its records', async () => {
    const { page } = bp;
    await page.setViewportSize(DESKTOP);
    const lookups = recordLookups(page);
    await signInWithKeyboard(page, company.admin.username, company.admin.password);

    await navigate(page, 'Rules');
    expect(await tableText(page)).to.include(`${needle.sku} — ${needle.name}`);
    const ruleForm = await openPanel(page, 'New rule');
    await findByTyping(page, ruleForm, 'product_id', 'needle', `${needle.sku} — ${needle.name}`);

    const virgin = await generateCode(company);
    const forItem = await generateCode(company);
    await navigate(page, 'QR codes');
    await page.getByRole('button', { name: `Link ${virgin}`, exact: true }).click();
    const dialog = page.getByRole('dialog');
    await findByTyping(page, dialog, 'product', 'needle', needle.name);
    await dialog.getByLabel('Link to').selectOption('WORK_ORDER');
    expect(await dialog.locator('select[name="product"]').isVisible(), 'the product picker hides for a work order').to.equal(false);
    await findByTyping(page, dialog, 'work_order', order.number, `${order.number} — ${order.title}`);
    await dialog.locator('select[name="work_order"]').selectOption(order.id);
    await dialog.getByRole('button', { name: 'Link code' }).click();
    await notice(page, '1 code(s) linked.');
    await settled(page);
    const linked = await get(`/api/v1/qr-codes/${virgin}/`, { token: company.token });
    expect(linked.body).to.include({ status: 'CONFIGURED', target_type: 'WORK_ORDER', target_id: order.id });
    await page.getByRole('button', { name: `Link ${forItem}`, exact: true }).click();
    await dialog.getByLabel('Link to').selectOption('ITEM');
    await findByTyping(page, dialog, 'item', `sn-${tag}`, `Serial SN-${tag}`);
    await dialog.locator('select[name="item"]').selectOption(item.id);
    await dialog.getByRole('button', { name: 'Link code' }).click();
    await notice(page, '1 code(s) linked.');
    await settled(page);
    expect((await get(`/api/v1/qr-codes/${forItem}/`, { token: company.token })).body).to.include({
      status: 'CONFIGURED',
      target_type: 'ITEM',
      target_id: item.id,
    });
    const codes = await tableText(page);
    expect(codes)
      .to.include(`Work order ${order.number} — ${order.title}`)
      .and.include(`Product ${needle.sku} — ${needle.name}`)
      .and.include(`Item Serial SN-${tag} · ${tag}-drill — Drill ${tag}`);

    // The audit log names each record and the ids its changes hold (a product, a parent), never an id fragment.
    expect((await patch(`/api/v1/product-models/${needle.id}/`, { description: `Sharp ${tag}` }, { token: company.token })).status).to.equal(200);
    expect((await patch(`/api/v1/locations/${bay}/`, { parent_id: hall }, { token: company.token })).status).to.equal(200);
    await navigate(page, 'Audit log');
    const audit = await tableText(page);
    expect(audit).to.include(`Product ${needle.sku} — ${needle.name}`).and.include(`Location Bay 00 ${tag}`).and.include(`— → Hall ${tag}`);
    const ruleRow = await page.locator('table tbody tr', { hasText: 'Monitoring rule' }).first().innerText();
    expect(ruleRow, 'the rule named, its product named in its changes').to.include('Threshold rule').and.include(`${needle.sku} — ${needle.name}`);
    const entries = (await get('/api/v1/audit-log/?page_size=20&ordering=-created_at', { token: company.token })).body.results as Array<{
      resource_id: string;
      changes: Record<string, { after: unknown }>;
    }>;
    for (const e of entries) expect(audit, `no fragment of ${e.resource_id}`).to.not.include(e.resource_id.slice(0, 8));
    await screenshotChecked(page, 'pickers-everywhere-audit-1280', DASHBOARD_CHECKS);

    await expectPagedLookups(lookups, 'rules, QR codes and the audit log');
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });

  it('at 360 px: Locations name each parent and its pickers search; a product page finds a location by typing', async () => {
    const { page } = bp;
    await page.setViewportSize(PHONE);
    const lookups = recordLookups(page);
    await signInWithKeyboard(page, company.admin.username, company.admin.password);

    await navigate(page, 'Locations');
    await page.getByRole('searchbox', { name: 'Search name' }).fill('rack');
    await settled(page);
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table tbody tr').length === 1, undefined, { timeout: 10_000 });
    expect(await tableText(page))
      .to.include(`Rack ${tag}`)
      .and.include(`Hall ${tag}`);
    const form = await openPanel(page, 'New location');
    await findByTyping(page, form, 'parent_id', 'hall', `Hall ${tag}`);
    await form.getByLabel('Name').fill(`Shelf ${tag}`);
    await form.locator('select[name="parent_id"]').selectOption(hall);
    await form.getByRole('button', { name: 'Create location' }).click();
    await notice(page, `Location Shelf ${tag} created.`);
    const shelf = (await get(`/api/v1/locations/?search=${encodeURIComponent(`Shelf ${tag}`)}`, { token: company.token })).body.results[0];
    expect(shelf.parent_id).to.equal(hall);
    await page.getByRole('button', { name: `Edit Rack ${tag}` }).click();
    const dialog = page.getByRole('dialog');
    await expectOptions(page, dialog.locator('select[name="parent_id"]'), (l) => l.some((x) => x.startsWith(`Hall ${tag}`)), 'the current parent named');
    expect(await dialog.locator('select[name="parent_id"]').inputValue()).to.equal(hall);
    await screenshotChecked(page, 'pickers-everywhere-locations-360', DASHBOARD_CHECKS);
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();

    await goTo(page, `#/products/${needle.id}`, `${needle.sku} — ${needle.name}`);
    const history = page.locator('.history-controls');
    await findByTyping(page, history, 'location_id', 'rack', `Rack ${tag}`);
    const atRack = (await get(`/api/v1/stock/history/?product_id=${needle.id}&interval=day&location_id=${rack}`, { token: company.token })).body;
    const all = (await get(`/api/v1/stock/history/?product_id=${needle.id}&interval=day`, { token: company.token })).body;
    const now = (h: { points: Array<{ stock_display: string }> }) => h.points[h.points.length - 1].stock_display;
    await history.locator('select[name="location_id"]').selectOption(rack);
    await page.locator('.history-summary', { hasText: `Now ${now(atRack)} ` }).waitFor({ timeout: 10_000 });
    expect(now(atRack), 'the rack holds part of the stock only').to.not.equal(now(all));
    await screenshotChecked(page, 'pickers-everywhere-product-360', DASHBOARD_CHECKS);

    await expectPagedLookups(lookups, 'locations and the product page');
    expect(unexpectedProblems(bp)).to.deep.equal([]);
  });
});

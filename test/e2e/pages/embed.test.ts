/**
 * Embedding: a page of another site (`http://localhost:<port>`, the gateway being `http://127.0.0.1:<port>`)
 * loads `/widget/sdk.js` and calls `InventoryWidget.mount('#stock', { apiKey })` (support/pages.ts). The SDK
 * checks the key from the embedding page (the gateway compares that page's Origin with the key's
 * `allowed_domains`), then mounts the widget in a sandboxed iframe and hands it the key by postMessage: the
 * key never appears in a URL. Outside the key's `allowed_domains` (or with a bad key) nothing is mounted.
 * Screenshots: test-artifacts/embed-*.png.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { get } from '../../support/api';
import { BrowserPage, pageProblems, screenshotChecked, useBrowser } from '../../support/browser';
import { TestCompany, addStock, buildApiKey, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { system } from '../../support/hooks';
import { EmbeddingSite, WIDGET_CHECKS, recordRequests, serveEmbeddingPage } from '../../support/pages';
import { balanceOf } from '../../support/stock';

interface MountResult {
  ok: boolean;
  code?: string;
  message?: string;
}

/** Calls the SDK in the embedding page, as the site's own script would. */
function mount(page: Page, apiKey: unknown): Promise<MountResult> {
  return page.evaluate<MountResult>(
    `InventoryWidget.mount('#stock', { apiKey: ${JSON.stringify(apiKey)} }).then(() => ({ ok: true }), (e) => ({ ok: false, code: e.code, message: e.message }))`,
  );
}

function problems(bp: BrowserPage): string[] {
  return pageProblems(bp, { expectedConsole: /Failed to load resource|blocked by CORS policy/, failedRequests: false, labelled: false });
}

describe('Widget SDK: /widget/sdk.js embeds the widget on another site', function () {
  this.timeout(90_000);
  const chromium = useBrowser('Widget SDK');
  let site: EmbeddingSite;

  before(async () => {
    site = await serveEmbeddingPage(system().url);
  });

  after(async () => {
    await site?.close();
  });

  async function embeddingPage(): Promise<BrowserPage & { requests: ReturnType<typeof recordRequests> }> {
    const bp = await chromium.newPage();
    const requests = recordRequests(bp.page);
    await bp.page.goto(site.url);
    await bp.page.waitForFunction('typeof window.InventoryWidget === "object"');
    return { ...bp, requests };
  }

  async function stocked(): Promise<{ company: TestCompany; location: { id: string; name: string }; product: { id: string; name: string } }> {
    const company = await buildCompany();
    const location = await buildLocation(company, 'Shop floor');
    const product = await buildProduct(company, { name: 'Garden hose' });
    await addStock(company, product.id, location.id, 10);
    return { company, location, product };
  }

  it('sdk.js is a small classic script, served to any site', async () => {
    const res = await fetch(`${system().url}/widget/sdk.js`, { headers: { origin: site.origin } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/javascript/);
    expect(res.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
    const text = await res.text();
    expect(text.length).to.be.below(20_000);
    expect(text).to.not.match(/^\s*(import|export)\s/m);
  });

  it('mounts the widget in a sandboxed iframe (key by postMessage, never in a URL); bookings in it show the new stock', async () => {
    const { company, location, product } = await stocked();
    const bp = await embeddingPage();
    const { page, requests } = bp;
    expect(await mount(page, company.apiKey)).to.deep.equal({ ok: true });

    const iframe = page.locator('#stock iframe');
    expect(await iframe.count()).to.equal(1);
    expect(await iframe.getAttribute('sandbox')).to.equal('allow-scripts allow-same-origin allow-forms');
    expect(await iframe.getAttribute('referrerpolicy')).to.equal('strict-origin-when-cross-origin');
    expect(await iframe.getAttribute('allow'), "the widget's Scan may use the camera").to.equal('camera');
    expect(await iframe.getAttribute('src')).to.equal(`${system().url}/widget/?embed=1`);
    expect(await iframe.getAttribute('title')).to.equal('Inventory');

    const frame = page.frameLocator('#stock iframe');
    await frame.getByRole('heading', { level: 2, name: 'Products' }).waitFor();
    await frame.locator('.product-link', { hasText: product.name }).click();
    await frame.getByRole('heading', { level: 2, name: product.name }).waitFor();
    await frame.locator('.booking .segment label', { hasText: /^Subtract$/ }).click();
    await frame.getByLabel('Quantity (pcs)').fill('3');
    await frame.getByRole('button', { name: 'Subtract stock' }).click();
    await frame.locator('.booking-notice .notice-ok', { hasText: 'New stock: 7 pcs' }).waitFor();
    expect(await balanceOf(product.id, location.id)).to.equal(7);

    // The iframe follows its content's height.
    const height = await iframe.evaluate((el) => (el as unknown as { clientHeight: number }).clientHeight);
    expect(height).to.be.greaterThan(320);

    // The key: in the SDK's check and the widget's calls as X-API-Key, never in a URL, never stored by the widget.
    expect(requests.some((r) => r.url === `${system().url}/api/v1/widget/locations/` && r.headers['x-api-key'] === company.apiKey)).to.equal(true);
    for (const r of requests) expect(r.url).to.not.include(company.apiKey).and.not.include('api_key');
    const widgetFrame = page.frames().find((f) => f.url().startsWith(`${system().url}/widget/`))!;
    // (Chromium may deny a third-party frame its storage altogether; the widget never needs it.)
    expect(await widgetFrame.evaluate('(() => { try { return sessionStorage.length + localStorage.length; } catch { return 0; } })()')).to.equal(0);

    await frame.getByRole('link', { name: '← All products' }).click();
    await frame.getByRole('heading', { level: 2, name: 'Products' }).waitFor();
    await screenshotChecked(page, 'embed-products', WIDGET_CHECKS);
    expect(problems(bp)).to.deep.equal([]);
  });

  it('mounts for a key whose allowed_domains include the embedding origin', async () => {
    const { company, product } = await stocked();
    const key = await buildApiKey(company, { permissions: ['read', 'write'], allowed_domains: [site.origin] });
    const bp = await embeddingPage();
    expect(await mount(bp.page, key.key)).to.deep.equal({ ok: true });
    const frame = bp.page.frameLocator('#stock iframe');
    await frame.locator('.product-link', { hasText: product.name }).waitFor();
    expect(await frame.locator('.product-link .stock').first().textContent()).to.equal('Stock: 10 pcs');
  });

  it("refuses to mount when the embedding origin is not in the key's allowed_domains, with a clear message and no iframe", async () => {
    const { company } = await stocked();
    const key = await buildApiKey(company, { permissions: ['read', 'write'], allowed_domains: ['https://shop.example.com'] });
    // The gateway's answer to the SDK's check, as the browser sends it:
    const direct = await get('/api/v1/widget/locations/', { apiKey: key.key, headers: { origin: site.origin }, undocumented: true });
    expect(direct.status).to.equal(403);
    expect(direct.body.code).to.equal('origin_not_allowed');

    const bp = await embeddingPage();
    const result = await mount(bp.page, key.key);
    expect(result.ok).to.equal(false);
    // A refusal carries no CORS header, so the browser hides its status from the SDK: either code is right.
    expect(result.code).to.be.oneOf(['key_refused', 'origin_not_allowed']);
    expect(result.message).to.include(site.origin);
    expect(await bp.page.locator('#stock iframe').count()).to.equal(0);
    const alert = bp.page.locator('#stock [role="alert"]');
    expect(await alert.textContent())
      .to.include('The inventory widget cannot be shown.')
      .and.include('allowed domains');
    expect(bp.requests.some((r) => r.url.includes('/widget/?embed='))).to.equal(false);
    await screenshotChecked(bp.page, 'embed-refused', WIDGET_CHECKS);
  });

  it("refuses a key in an iframe written by hand on a site outside its allowed_domains, naming that site; a listed site's opens", async () => {
    const { company, product } = await stocked();
    const restricted = await buildApiKey(company, { permissions: ['read', 'write'], allowed_domains: ['https://shop.example.com'] });
    const listed = await buildApiKey(company, { permissions: ['read', 'write'], allowed_domains: [site.origin] });
    const handMade = async (apiKey: string) => {
      const bp = await chromium.newPage();
      await bp.page.goto(`${site.origin}/hand-made`);
      await bp.page.waitForFunction('window.widgetMessages.some((m) => m && m.type === "ready")');
      await bp.page.evaluate(
        `document.getElementById('widget').contentWindow.postMessage(${JSON.stringify({ source: 'pi-inventory-widget', type: 'key', apiKey })}, ${JSON.stringify(system().url)})`,
      );
      return bp;
    };

    // Without the SDK's check the widget page itself must not let the key in: it speaks for the page around it.
    const refused = await handMade(restricted.key);
    const frame = refused.page.frameLocator('#widget');
    await frame.getByRole('heading', { name: 'The widget cannot open' }).waitFor();
    expect(await frame.locator('main').textContent()).to.include(`This key's allowed domains do not include ${site.origin}`);
    await refused.page.waitForFunction('window.widgetMessages.some((m) => m && m.type === "error")');
    const errors = await refused.page.evaluate<Array<Record<string, unknown>>>('window.widgetMessages.filter((m) => m.type === "error")');
    expect(errors).to.have.length(1);
    expect(errors[0]).to.deep.include({ code: 'origin_not_allowed', status: 403 });
    expect(await frame.locator('.product-link').count()).to.equal(0);
    await screenshotChecked(refused.page, 'embed-hand-made-refused', WIDGET_CHECKS);

    const opened = await handMade(listed.key);
    await opened.page.frameLocator('#widget').locator('.product-link', { hasText: product.name }).waitFor();
    await opened.page.waitForFunction('window.widgetMessages.some((m) => m && m.type === "loaded")');
  });

  it('refuses an invalid key and a missing one', async () => {
    const bp = await embeddingPage();
    const bad = await mount(bp.page, `pik_${'x'.repeat(40)}`);
    expect(bad.ok).to.equal(false);
    expect(bad.code).to.be.oneOf(['key_refused', 'authentication_failed']);
    expect(await bp.page.locator('#stock iframe').count()).to.equal(0);
    const missing = await mount(bp.page, '');
    expect(missing).to.include({ ok: false, code: 'bad_options' });
    expect(await bp.page.locator('#stock [role="alert"]').textContent()).to.include('needs { apiKey }');
  });
});

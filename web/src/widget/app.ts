/**
 * The widget's shell: header (company, scanned code), section tabs, and a hash router over the screens. The
 * hash carries only screen names and record ids, never a key.
 */
import type { ApiError, WidgetApi } from './api.js';
import { type Ctx, type View, productsOf } from './context.js';
import { type Child, fill, h } from '../kit/dom.js';
import type { Location, ProductList, ProductSummary, QrInfo } from './types.js';
import { locationView, locationsView } from './views/locations.js';
import { productView } from './views/product.js';
import { productsView } from './views/products.js';
import { qrView } from './views/qr.js';
import { scanView } from './views/scan.js';
import { workOrdersView } from './views/work-orders.js';

const UUID = '([0-9a-fA-F-]{36})';
const ROUTES: Array<{ pattern: RegExp; view: View; tab: string }> = [
  { pattern: /^#\/products\/?$/, view: productsView, tab: 'products' },
  { pattern: new RegExp(`^#/products/${UUID}/?$`), view: productView, tab: 'products' },
  { pattern: /^#\/locations\/?$/, view: locationsView, tab: 'locations' },
  { pattern: new RegExp(`^#/locations/${UUID}/?$`), view: locationView, tab: 'locations' },
  { pattern: /^#\/work-orders\/?$/, view: workOrdersView, tab: 'work-orders' },
  { pattern: /^#\/qr\/?$/, view: qrView, tab: 'qr' },
  { pattern: /^#\/scan\/?$/, view: scanView, tab: 'scan' },
];

const QR_BADGE: Record<string, string> = { VIRGIN: 'new', CONFIGURED: 'linked', LOCKED: 'locked' };

/** The page's fixed parts (static/widget/index.html), created if missing. */
export function shell() {
  const byId = <T extends HTMLElement>(id: string, make: () => T): T => (document.getElementById(id) as T | null) ?? document.body.appendChild(make());
  return {
    company: byId('company', () => h('p', { id: 'company', class: 'company' })),
    qrBadge: byId<HTMLAnchorElement>('qr-badge', () => h('a', { id: 'qr-badge', class: 'qr-badge', hidden: true })),
    nav: byId('nav', () => h('nav', { id: 'nav', class: 'tabs', 'aria-label': 'Sections', hidden: true })),
    main: byId('main', () => h('main', { id: 'main', tabindex: '-1' })),
    announcer: byId('announcer', () => h('div', { id: 'announcer', class: 'visually-hidden', role: 'status', 'aria-live': 'polite' })),
  };
}

/** A full-screen message (scan problems, session ended, waiting for the embedding page). */
export function showScreen(title: string, text: Child | Child[], ...actions: Child[]): void {
  const { main, nav } = shell();
  nav.hidden = true;
  const heading = h('h1', { class: 'screen-title', tabindex: '-1' }, title);
  fill(
    main,
    h(
      'section',
      { class: 'screen', 'aria-labelledby': 'screen-title' },
      heading,
      ...(Array.isArray(text) ? text : [text]).map((t) => (typeof t === 'string' ? h('p', {}, t) : t)),
      ...actions,
    ),
  );
  heading.id = 'screen-title';
  document.title = `${title} · Inventory widget`;
  // Not inside an embedding page: focusing there would scroll that page to the widget.
  if (!document.documentElement.classList.contains('embedded')) heading.focus({ preventScroll: true });
}

export interface StartOptions {
  api: WidgetApi;
  mode: 'scan' | 'embed';
  qr: QrInfo | null;
  /** The key stopped working (401): the caller shows what to do. */
  onUnauthorized(err: ApiError): void;
  /** The scanned code changed (configured, locked): the caller keeps its session current. */
  onQrChange?(qr: QrInfo): void;
  /** The first screen has been shown. */
  onFirstRender?(): void;
  /** The locations, when the caller has just read them (the key check of embedded mode): the cache starts with them. */
  locations?: Location[];
}

export function startApp(options: StartOptions): Ctx {
  const ui = shell();
  let locationsCache: Promise<Location[]> | undefined = options.locations ? Promise.resolve(options.locations) : undefined;
  let productsCache: Promise<ProductSummary[]> | undefined;
  /** `productsCache` is still on its way (not answered yet). */
  let productsPending = false;
  let stopped = false;

  function requestProducts(): Promise<ProductSummary[]> {
    const request = options.api.get<ProductList>('').then((r) => productsOf(ctx, r));
    productsCache = request;
    productsPending = true;
    request.then(
      () => {
        if (productsCache === request) productsPending = false;
      },
      () => {
        if (productsCache !== request) return;
        productsCache = undefined;
        productsPending = false;
      },
    );
    return request;
  }

  const ctx: Ctx = {
    api: options.api,
    mode: options.mode,
    qr: options.qr,
    filters: { q: '', locationId: '' },
    lastBooking: {},
    locations() {
      locationsCache ??= options.api.get<{ locations: Location[] }>('locations/').then((r) => r.locations);
      locationsCache.catch(() => (locationsCache = undefined));
      return locationsCache;
    },
    invalidateLocations() {
      locationsCache = undefined;
    },
    products() {
      return productsCache ?? requestProducts();
    },
    freshProducts() {
      return productsCache && productsPending ? productsCache : requestProducts();
    },
    invalidateProducts() {
      productsCache = undefined;
      productsPending = false;
    },
    setCompany(name: string) {
      ui.company.textContent = name;
    },
    setQr(qr: QrInfo) {
      ctx.qr = {
        code: qr.code,
        status: qr.status,
        target_type: qr.target_type,
        target_id: qr.target_id,
        product_model_id: qr.product_model_id,
        allowed_transitions: qr.allowed_transitions,
      };
      options.onQrChange?.(ctx.qr);
      renderBadge();
    },
    announce(text: string) {
      // Cleared first so that the same sentence twice is read twice.
      ui.announcer.textContent = '';
      window.setTimeout(() => (ui.announcer.textContent = text), 50);
    },
  };

  options.api.onUnauthorized = (err) => {
    if (stopped) return;
    stopped = true;
    window.removeEventListener('hashchange', onHashChange);
    options.onUnauthorized(err);
  };

  const tabs: Array<[string, string, string]> = [
    ['products', '#/products', 'Products'],
    ['locations', '#/locations', 'Locations'],
    ['work-orders', '#/work-orders', 'Work orders'],
  ];
  if (options.qr) tabs.push(['qr', '#/qr', 'QR code']);
  tabs.push(['scan', '#/scan', 'Scan']);
  const links = tabs.map(([tab, href, label]) => h('a', { href, 'data-tab': tab }, label));
  fill(ui.nav, h('ul', {}, ...links.map((a) => h('li', {}, a))));
  ui.nav.hidden = false;

  function renderBadge() {
    if (!ctx.qr) {
      ui.qrBadge.hidden = true;
      return;
    }
    ui.qrBadge.hidden = false;
    ui.qrBadge.href = '#/qr';
    ui.qrBadge.textContent = `Code ${ctx.qr.code} · ${QR_BADGE[ctx.qr.status] ?? ctx.qr.status.toLowerCase()}`;
  }
  renderBadge();

  function startHash(): string {
    const qr = ctx.qr;
    if (qr?.status === 'VIRGIN') return '#/qr';
    if (qr?.target_type === 'WORK_ORDER') return '#/work-orders';
    if (qr?.product_model_id) return `#/products/${qr.product_model_id}`;
    return '#/products';
  }

  let first = true;
  let current = 0;
  async function render(): Promise<void> {
    const hash = window.location.hash;
    const route = ROUTES.find((r) => r.pattern.test(hash));
    if (!route) {
      history.replaceState(history.state, '', startHash());
      return render();
    }
    const seq = ++current;
    for (const a of links) {
      if (a.dataset.tab === route.tab) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    const params = (route.pattern.exec(hash) ?? []).slice(1);
    const view = h('section', { class: `view view-${route.tab}` });
    fill(ui.main, view);
    document.title = 'Inventory widget';
    const wasFirst = first;
    first = false;
    try {
      await route.view(ctx, view, params);
    } catch (err) {
      view.appendChild(h('p', { class: 'notice notice-error', role: 'alert' }, `This screen failed: ${err instanceof Error ? err.message : String(err)}`));
    }
    if (seq !== current || stopped) return;
    if (wasFirst) options.onFirstRender?.();
    else (view.querySelector('h2') as HTMLElement | null)?.focus();
  }
  // The header names the company (from the product list, which the pickers and names use too).
  void ctx.products().catch(() => undefined);
  const onHashChange = () => void render();
  window.addEventListener('hashchange', onHashChange);
  void render();
  return ctx;
}

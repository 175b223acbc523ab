/**
 * One product (`#/products/<id>`): total and per-location stock, the booking form, and its batches (BATCH) or
 * items (SERIALIZED), and a sparkline of its last 30 days. After a booking only the data is refreshed: the form (and its double-tap guard) stays.
 */
import type { Ctx } from '../context.js';
import { fill, h } from '../../kit/dom.js';
import { loading, showError } from '../notice.js';
import type { Batch, Item, ProductDetail } from '../types.js';
import { type BookingData, type BookingSection, bookingSection } from './booking.js';
import { type StockHistory, sparkline } from './sparkline.js';

type Loaded = BookingData;

const PROFILE_NAMES: Record<string, string> = { STANDARD: 'Counted', SERIALIZED: 'Serialized', BATCH: 'Batches', DIMENSIONAL: 'Measured' };

async function load(ctx: Ctx, id: string): Promise<Loaded> {
  const [product, locations] = await Promise.all([ctx.api.get<ProductDetail>(`${id}/`), ctx.locations()]);
  const [items, batches] = await Promise.all([
    product.profile === 'SERIALIZED' ? ctx.api.get<{ items: Item[] }>('items/', { product_id: id }).then((r) => r.items) : Promise.resolve(null),
    product.profile === 'BATCH' ? ctx.api.get<{ batches: Batch[] }>('batches/', { product_id: id }).then((r) => r.batches) : Promise.resolve(null),
  ]);
  return { product, locations, items, batches };
}

function table(caption: string, head: string[], rows: Array<Array<string | Node>>, numericFrom = head.length - 1): HTMLTableElement {
  return h(
    'table',
    { class: 'data' },
    h('caption', { class: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, ...head.map((c, i) => h('th', { scope: 'col', class: i >= numericFrom ? 'num' : null }, c)))),
    h(
      'tbody',
      {},
      ...rows.map((r) => h('tr', {}, ...r.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c) : h('td', { class: i >= numericFrom ? 'num' : null }, c))))),
    ),
  );
}

function stockPanel(data: Loaded): HTMLElement {
  const { product } = data;
  const rows = product.locations.map((l) => [l.location_name, l.stock_display]);
  return h(
    'section',
    { class: 'panel' },
    h('h3', {}, 'Stock by location'),
    rows.length > 0 ? table(`Stock of ${product.name} by location`, ['Location', 'Stock'], rows) : h('p', { class: 'muted' }, 'No stock at any location yet.'),
  );
}

function batchesPanel(batches: Batch[]): HTMLElement {
  return h(
    'section',
    { class: 'panel' },
    h('h3', {}, 'Batches'),
    batches.length > 0
      ? table(
          'Batches with stock, earliest expiry first',
          ['Batch', 'Expires', 'Stock'],
          batches.map((b) => [b.code, b.expiration_date ?? '—', b.stock_display]),
        )
      : h('p', { class: 'muted' }, 'No batch has stock.'),
  );
}

function itemsPanel(items: Item[]): HTMLElement {
  return h(
    'section',
    { class: 'panel' },
    h('h3', {}, `Items (${items.length})`),
    items.length > 0
      ? table(
          'Active items',
          ['Serial number', 'Location'],
          items.map((i) => [i.serial_number, i.location_name]),
          2,
        )
      : h('p', { class: 'muted' }, 'No active items.'),
  );
}

export async function productView(ctx: Ctx, view: HTMLElement, [id]: string[]): Promise<void> {
  const heading = h('h2', { tabindex: '-1' }, 'Product');
  const back = h('p', { class: 'back' }, h('a', { href: '#/products' }, '← All products'));
  const status = loading();
  view.append(back, heading, status);

  let data: Loaded;
  try {
    data = await load(ctx, id);
  } catch (err) {
    showError(status, err);
    return;
  }
  const { product } = data;
  heading.textContent = product.name;
  document.title = `${product.name} · Inventory widget`;

  const total = h('strong', { class: 'total-stock' }, product.stock_display);
  // The last 30 days as a sparkline; the view works without it (an older gateway, a failed request).
  const trend = h('p', { class: 'trend' });
  const drawTrend = () =>
    ctx.api
      .get<StockHistory>(`${id}/history/`)
      .then((history) => trend.replaceChildren(...[sparkline(history)].filter((el): el is SVGSVGElement => el !== null)))
      .catch(() => undefined);
  const summary = h(
    'div',
    { class: 'summary' },
    h('p', { class: 'meta' }, h('span', { class: 'sku' }, product.sku), ' · ', PROFILE_NAMES[product.profile] ?? product.profile, ' · ', product.unit),
    product.description ? h('p', { class: 'description' }, product.description) : null,
    h('p', { class: 'total' }, 'Total stock ', total),
    trend,
  );
  const scanned =
    ctx.qr && ctx.qr.product_model_id === product.id && ctx.qr.status !== 'VIRGIN'
      ? h('p', { class: 'notice' }, `Scanned code ${ctx.qr.code} belongs to this product.`)
      : null;

  const details = h('div', { class: 'column' });
  const renderDetails = (d: Loaded) => {
    fill(details, stockPanel(d), d.batches ? batchesPanel(d.batches) : null, d.items ? itemsPanel(d.items) : null);
    total.textContent = d.product.stock_display;
  };
  // eslint-disable-next-line prefer-const -- refresh (below) reads it before bookingSection assigns it
  let booking: BookingSection | undefined;
  const refresh = async () => {
    try {
      const next = await load(ctx, id);
      renderDetails(next);
      booking?.update(next);
      void drawTrend();
    } catch (err) {
      booking?.showError(err);
    }
  };
  booking = bookingSection(ctx, data, refresh);
  renderDetails(data);
  status.replaceWith(summary);
  void drawTrend();
  view.append(...(scanned ? [scanned] : []), h('div', { class: 'product-grid' }, booking.element, details));
}

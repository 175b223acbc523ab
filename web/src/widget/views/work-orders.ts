/** Open work orders (`#/work-orders`): `OPEN` and `IN_PROGRESS`, earliest due first. */
import type { Ctx } from '../context.js';
import { h } from '../../kit/dom.js';
import { loading, showError } from '../notice.js';
import type { ProductSummary, WorkOrder } from '../types.js';

const STATUS_NAMES: Record<string, string> = { OPEN: 'Open', IN_PROGRESS: 'In progress', DONE: 'Done', CANCELLED: 'Cancelled' };

export async function workOrdersView(ctx: Ctx, view: HTMLElement): Promise<void> {
  const heading = h('h2', { tabindex: '-1' }, 'Open work orders');
  const status = loading();
  view.append(heading, status);
  let orders: WorkOrder[];
  let products: ProductSummary[] = [];
  try {
    [orders, products] = await Promise.all([
      ctx.api.get<{ work_orders: WorkOrder[] }>('work_orders/').then((r) => r.work_orders),
      ctx.products().catch(() => []),
    ]);
  } catch (err) {
    showError(status, err);
    return;
  }
  const scanned = ctx.qr?.target_type === 'WORK_ORDER' ? ctx.qr.target_id : null;
  const productOf = (id: string | null) => (id ? products.find((p) => p.id === id) : undefined);
  if (orders.length === 0) {
    status.replaceWith(h('p', { class: 'muted' }, 'No open work orders.'));
    return;
  }
  status.replaceWith(
    h(
      'ul',
      { class: 'work-orders' },
      ...orders.map((o) => {
        const product = productOf(o.product_id);
        return h(
          'li',
          { class: o.id === scanned ? 'highlight' : null, 'aria-current': o.id === scanned ? 'true' : null },
          h(
            'p',
            { class: 'wo-head' },
            h('span', { class: 'wo-number' }, o.number),
            h('span', { class: `badge status-${o.status.toLowerCase()}` }, STATUS_NAMES[o.status] ?? o.status),
          ),
          h('p', { class: 'wo-title' }, o.title),
          h(
            'p',
            { class: 'muted wo-meta' },
            o.due_date ? `Due ${o.due_date}` : 'No due date',
            o.quantity !== null ? ` · Quantity ${o.quantity}` : '',
            o.id === scanned ? ' · Scanned code' : '',
          ),
          product ? h('p', {}, h('a', { href: `#/products/${product.id}` }, `${product.name} (${product.sku})`)) : null,
        );
      }),
    ),
  );
}

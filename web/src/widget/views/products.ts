/** The product list (`#/products`): every product with its stock, a search box and a location filter. */
import { type Ctx, productsOf } from '../context.js';
import { field, fill, h, option } from '../../kit/dom.js';
import { errorText } from '../messages.js';
import type { ProductList, ProductSummary } from '../types.js';

/** A product's entry in a `.product-list`: a link to its page with its name, SKU and stock. */
export function productItem(p: Pick<ProductSummary, 'id' | 'name' | 'sku' | 'stock_display'>): HTMLLIElement {
  return h(
    'li',
    {},
    h(
      'a',
      { href: `#/products/${p.id}`, class: 'product-link' },
      h('span', { class: 'name' }, p.name),
      h('span', { class: 'sku' }, p.sku),
      h('span', { class: 'stock' }, h('span', { class: 'visually-hidden' }, 'Stock: '), p.stock_display),
    ),
  );
}

export async function productsView(ctx: Ctx, view: HTMLElement): Promise<void> {
  const heading = h('h2', { tabindex: '-1' }, 'Products');
  const search = h('input', { type: 'search', name: 'q', autocomplete: 'off', placeholder: 'Name or SKU', value: ctx.filters.q });
  const place = h('select', { name: 'location_id' }, option('', 'All locations', true));
  const status = h('p', { class: 'muted count', role: 'status' }, 'Loading…');
  const list = h('ul', { class: 'product-list' });
  const filters = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filter products' }, field('Search', search), field('Stock at', place));
  filters.addEventListener('submit', (event) => event.preventDefault());
  view.append(heading, filters, status, list);

  let products: ProductSummary[] = [];
  const render = () => {
    const q = search.value.trim().toLowerCase();
    const shown = q ? products.filter((p) => p.name.toLowerCase().includes(q) || p.sku.toLowerCase().includes(q)) : products;
    status.className = 'muted count';
    status.textContent =
      products.length === 0
        ? 'No products yet.'
        : shown.length === 0
          ? 'No product matches the search.'
          : q
            ? `${shown.length} of ${products.length} products`
            : `${products.length} product${products.length === 1 ? '' : 's'}`;
    fill(list, ...shown.map(productItem));
  };
  const load = async () => {
    status.className = 'muted count';
    status.textContent = 'Loading…';
    try {
      // All locations: the list the header and pickers use too (one request when both want it at once).
      const locationId = ctx.filters.locationId;
      products = locationId ? productsOf(ctx, await ctx.api.get<ProductList>('', { location_id: locationId })) : await ctx.freshProducts();
      render();
    } catch (err) {
      products = [];
      list.replaceChildren();
      status.className = 'notice notice-error';
      status.textContent = errorText(err);
    }
  };
  search.addEventListener('input', () => {
    ctx.filters.q = search.value;
    render();
  });
  place.addEventListener('change', () => {
    ctx.filters.locationId = place.value;
    void load();
  });
  ctx
    .locations()
    .then((locations) => {
      for (const l of locations) place.appendChild(option(l.id, l.name, l.id === ctx.filters.locationId));
      if (!locations.some((l) => l.id === ctx.filters.locationId)) ctx.filters.locationId = '';
    })
    .catch(() => undefined); // the list shows the error
  await load();
}

/**
 * A product's page (`#/products/<id>`): its stock over time as a chart, with the interval and location to show,
 * and the same numbers as a text summary and a table for those who do not see the chart
 * (docs/api/stock-history.md). Periods are UTC days, weeks or months.
 */
import { get } from '../api.js';
import { field, h, option } from '../../kit/dom.js';
import { StockHistory, drawHistoryChart, periodLabel } from '../history-chart.js';
import { Product, locationLookup } from '../model.js';
import type { ScreenContext } from '../screen.js';
import { actions, button, errorBox, facts, screenHeader, section } from '../ui.js';

const INTERVALS: Array<[StockHistory['interval'], string]> = [
  ['day', 'Days (last 30)'],
  ['week', 'Weeks (last 12)'],
  ['month', 'Months (last 12)'],
];

/** One sentence with the latest balance first, then where the period started and its range. */
export function historySummary(history: StockHistory): string {
  const points = history.points;
  const last = points[points.length - 1];
  if (!last) return 'No periods to show.';
  const first = points[0];
  const display = (q: number) => points.find((p) => p.quantity === q)!.stock_display;
  const quantities = points.map((p) => p.quantity);
  return (
    `Now ${last.stock_display} (${periodLabel(last.period, history.interval)}). ` +
    `${periodLabel(first.period, history.interval)}: ${first.stock_display}. ` +
    `Lowest ${display(Math.min(...quantities))}, highest ${display(Math.max(...quantities))} over ${points.length} ${history.interval}s.`
  );
}

export async function renderProductPage({ root, id, go }: ScreenContext): Promise<void> {
  const product = await get<Product>(`/api/v1/product-models/${id}/`);
  const interval = h(
    'select',
    { name: 'interval' },
    INTERVALS.map(([value, label]) => option(value, label, value === 'day')),
  );
  // The location picker searches as one types (one page of matches, in their hierarchy), like the forms' pickers.
  const location = h('select', { name: 'location_id' }, option('', 'All locations'));
  const lookup = locationLookup('All locations', (l) => l.type !== 'VIRTUAL');
  const locationSearch = h('input', {
    type: 'search',
    class: 'picker-search',
    'aria-label': 'Search',
    placeholder: 'Type to search',
    autocomplete: 'off',
    maxlength: '200',
  });
  let asked = 0;
  const searchLocations = async (): Promise<void> => {
    const ask = ++asked;
    const chosen = location.selectedOptions[0];
    const found = await lookup(locationSearch.value.trim()).catch(() => null);
    if (ask !== asked || !found) return;
    if (chosen?.value && !found.some((o) => o.value === chosen.value)) found.splice(1, 0, { value: chosen.value, label: chosen.label });
    const keep = location.value;
    location.replaceChildren(...found.map((o) => option(o.value, o.label)));
    location.value = keep;
  };
  let pause: ReturnType<typeof setTimeout> | undefined;
  locationSearch.addEventListener('input', () => {
    clearTimeout(pause);
    pause = setTimeout(() => void searchLocations(), 300);
  });
  locationSearch.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      location.focus();
    }
  });
  void searchLocations();
  const summary = h('p', { class: 'history-summary', role: 'status', 'aria-live': 'polite' }, 'Loading…');
  // The canvas repeats the summary and the table: hidden from assistive technology, which reads those.
  const chartBox = h('div', { class: 'history-chart', 'aria-hidden': 'true' });
  const tableBody = h('tbody');
  const caption = h('caption', { class: 'visually-hidden' }, 'Stock at the end of each period');
  const table = h(
    'table',
    { class: 'history-table' },
    caption,
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Period (UTC)'), h('th', { scope: 'col', class: 'num' }, 'Stock at its end'))),
    tableBody,
  );
  const problem = h('div');
  let removeChart: (() => void) | undefined;

  async function load(): Promise<void> {
    problem.replaceChildren();
    const query: Record<string, string> = { product_id: product.id, interval: interval.value };
    if (location.value) query.location_id = location.value;
    let history: StockHistory;
    try {
      history = await get<StockHistory>('/api/v1/stock/history/', query);
    } catch (err) {
      problem.append(errorBox(err));
      return;
    }
    summary.textContent = historySummary(history);
    tableBody.replaceChildren(
      ...[...history.points]
        .reverse()
        .map((p) => h('tr', null, h('th', { scope: 'row' }, periodLabel(p.period, history.interval)), h('td', { class: 'num' }, p.stock_display))),
    );
    removeChart?.();
    removeChart = await drawHistoryChart(chartBox, history);
  }
  /** The location field: its label names the picker, the search box above it is described by that label. */
  function locationField(): HTMLElement {
    const wrapper = field('Location', location);
    const label = wrapper.querySelector('label')!;
    label.id = `${location.id}-label`;
    locationSearch.setAttribute('aria-describedby', label.id);
    locationSearch.setAttribute('aria-controls', location.id);
    label.after(locationSearch);
    return wrapper;
  }
  interval.addEventListener('change', () => void load());
  location.addEventListener('change', () => void load());

  root.append(
    screenHeader(`${product.sku} — ${product.name}`, 'Stock over time, calculated from the movement ledger: the balance at the end of each period (UTC).'),
    actions(
      button('All products', () => go('#/products')),
      button('Stock and bookings', () => go(`#/stock?product_id=${product.id}`), { label: `Stock of ${product.sku}` }),
      button('Movements', () => go(`#/movements?product_id=${product.id}`), { label: `Movements of ${product.sku}` }),
    ),
    facts([
      ['Profile', `${product.profile} · ${product.engine_type}`],
      ['Unit', product.decimals ? `${product.unit}, ${product.decimals} decimals` : product.unit],
    ]),
    section(
      'Stock over time',
      h('div', { class: 'history-controls' }, field('Interval', interval), locationField()),
      summary,
      problem,
      h('figure', { class: 'history-figure' }, chartBox),
      h('details', { class: 'panel history-details' }, h('summary', null, 'Table of the balances'), h('div', { class: 'panel-body' }, table)),
    ),
  );
  await load();
}

/**
 * The overview, the first screen after sign-in (docs/api/overview-and-appearance.md): products below their
 * minimum, batches with stock expiring within N days, open events by severity and the latest movements. Each
 * block reads the list endpoint of its screen with that screen's filters (the count of the page answers), and
 * links to the screen with the same filters in its hash query, so the list shows exactly the rows counted.
 */
import { type Page, get } from '../api.js';
import { type Child, fill, h, time, uid } from '../dom.js';
import { SEVERITIES, locationById, names, productById } from '../model.js';
import type { Screen } from '../screen.js';
import { screenHeader, statusBadge } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

type StockRow = Schema<'StockLevel'>;
type Batch = Schema<'Batch'>;
type Movement = Schema<'LedgerEntry'>;

/** The expiry windows offered, in days; the first is the default. */
export const EXPIRY_WINDOWS = [7, 30, 90];
/** How many rows a block lists under its count. */
const SHOWN = 5;

/** `YYYY-MM-DD` of the reader's local date `days` from today. */
function localDate(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** `#/<path>?<filters>` for a link to a filtered list. */
const listHash = (path: string, filters: Record<string, string>) => `#/${path}?${new URLSearchParams(filters).toString()}`;

/** A block: its heading, the count as a link to the filtered list, and what it lists. */
function block(title: string, count: number, countText: string, href: string, body: Child): HTMLElement {
  const id = uid('overview');
  return h(
    'section',
    { class: 'block overview-block', 'aria-labelledby': id },
    h('h2', { id }, title),
    h('p', { class: 'overview-count' }, h('a', { href, dataset: { count: String(count) } }, h('strong', { class: 'big' }, String(count)), ' ', countText)),
    body,
  );
}

const plainList = (items: Child[]) =>
  items.length
    ? h(
        'ul',
        { class: 'plain overview-list' },
        items.map((i) => h('li', null, i)),
      )
    : null;

export const screen: Screen = {
  path: 'overview',
  title: 'Overview',
  group: 'Overview',
  async render({ root, query, go }) {
    const days = EXPIRY_WINDOWS.includes(Number(query.get('days'))) ? Number(query.get('days')) : EXPIRY_WINDOWS[0];
    root.append(screenHeader('Overview', 'What needs attention. Each number opens the list it counts.'));
    const grid = h('div', { class: 'overview' });
    root.append(grid);

    const below = { below_min: 'true' };
    const expiring = { has_stock: 'true', expires_before: localDate(days + 1) };
    const open = (severity?: string) => ({ status: 'OPEN', ...(severity ? { severity } : {}) });
    const [lowStock, batches, events, bySeverity, movements] = await Promise.all([
      get<Page<StockRow>>('/api/v1/stock/', { ...below, page_size: SHOWN }),
      get<Page<Batch>>('/api/v1/batches/', { ...expiring, page_size: SHOWN }),
      get<Page<unknown>>('/api/v1/events/', { ...open(), page_size: 1 }),
      Promise.all(SEVERITIES.map((s) => get<Page<unknown>>('/api/v1/events/', { ...open(s), page_size: 1 }))),
      get<Page<Movement>>('/api/v1/movements/', { page_size: SHOWN }),
    ]);
    // Only the records these few rows name are read (once per id), never the whole catalog.
    const [products, locations] = await Promise.all([
      readEach(productById, [...batches.results.map((b) => b.product_id), ...movements.results.map((m) => m.product_id)]),
      readEach(
        locationById,
        movements.results.flatMap((m) => [m.from_location_id, m.to_location_id]),
      ),
    ]);
    const productName = names(products, (p) => `${p.sku} — ${p.name}`);
    const locationName = names(locations, (l) => l.name);

    const windowId = uid('days');
    const windowPicker = h(
      'select',
      { id: windowId, on: { change: (e: Event) => go(`#/overview?days=${(e.currentTarget as HTMLSelectElement).value}`) } },
      EXPIRY_WINDOWS.map((d) => h('option', { value: String(d), selected: d === days }, `${d} days`)),
    );

    fill(
      grid,
      block(
        'Below minimum stock',
        lowStock.count,
        lowStock.count === 1 ? 'product below its minimum' : 'products below their minimum',
        listHash('stock', below),
        plainList(lowStock.results.map((s) => `${s.sku} — ${s.name}: ${s.stock_display}`)),
      ),
      block(
        'Expiring batches',
        batches.count,
        `${batches.count === 1 ? 'batch' : 'batches'} with stock expiring within ${days} days`,
        listHash('batches', expiring),
        [
          h('div', { class: 'field inline' }, h('label', { for: windowId }, 'Expiring within'), windowPicker),
          plainList(batches.results.map((b) => `${b.code} (${productName(b.product_id)}): ${b.expiration_date}, ${b.stock_display}`)),
        ],
      ),
      block(
        'Open events',
        events.count,
        events.count === 1 ? 'open event' : 'open events',
        listHash('events', open()),
        h(
          'ul',
          { class: 'plain overview-list' },
          SEVERITIES.map((s, i) =>
            h(
              'li',
              null,
              h('a', { href: listHash('events', open(s)), dataset: { count: String(bySeverity[i].count) } }, statusBadge(s), ' ', String(bySeverity[i].count)),
            ),
          ),
        ),
      ),
      block(
        'Latest movements',
        movements.count,
        movements.count === 1 ? 'movement in the ledger' : 'movements in the ledger',
        '#/movements',
        plainList(
          movements.results.map((m) => [
            time(m.created_at),
            ` ${m.kind} ${m.quantity} × ${productName(m.product_id)}${m.batch_code ? ` (batch ${m.batch_code})` : ''}, ${locationName(m.from_location_id)} → ${locationName(m.to_location_id)}, by ${m.actor.name}`,
          ]),
        ),
      ),
    );
  },
};

/** The records of `ids` (each read once; nulls and unknown ids skipped). */
async function readEach<T>(read: (id: string) => Promise<T | null>, ids: Array<string | null | undefined>): Promise<T[]> {
  const unique = [...new Set(ids.filter((id): id is string => !!id))];
  const found: Array<T | null> = await Promise.all(unique.map(read));
  return found.filter((r): r is T => r !== null);
}

/** The movement ledger, newest first, with its filters (product, location, kind, batch code, time range). */
import { fromLocalInput, h, time } from '../dom.js';
import { str } from '../form.js';
import { PagedList } from '../list.js';
import { locationNameCell, locationPicker, productNameCell, productPicker } from '../model.js';
import type { Screen } from '../screen.js';
import { badge, screenHeader } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

/** A ledger entry, with the names of who booked it (docs/api/scanning.md). */
type Movement = Schema<'LedgerEntry'>;

const KINDS = ['ADD', 'SUBTRACT', 'MOVE_IN', 'MOVE_OUT', 'TRANSFER', 'ADJUST'];
const KIND_TONES: Record<string, 'ok' | 'bad' | 'info' | 'warn'> = {
  ADD: 'ok',
  MOVE_IN: 'ok',
  SUBTRACT: 'bad',
  MOVE_OUT: 'bad',
  TRANSFER: 'info',
  ADJUST: 'warn',
};

export const screen: Screen = {
  path: 'movements',
  title: 'Movements',
  group: 'Stock',
  async render({ root, query }) {
    root.append(screenHeader('Movements', 'The append-only stock ledger: every booking, newest first.'));
    // Names are read per id as rows show them, pickers search as one types: no screen loads the whole catalog.
    const productName = productNameCell();
    const locationName = locationNameCell();
    const list = new PagedList<Movement>({
      path: '/api/v1/movements/',
      search: 'Search reason, SKU or product name',
      sort: { field: 'created_at', descending: true },
      caption: 'Movements',
      empty: 'No movements match.',
      initial: Object.fromEntries(['product_id', 'location_id', 'kind', 'batch_code'].map((k) => [k, query.get(k) ?? ''])),
      // Older links name the batch by id; it stays a fixed filter of the list.
      fixed: query.get('batch_id') ? { batch_id: query.get('batch_id') } : undefined,
      filters: [
        productPicker({ name: 'product_id', label: 'Product', empty: 'All products', value: query.get('product_id') ?? '' }),
        locationPicker({
          name: 'location_id',
          label: 'Location (either side)',
          empty: 'All locations',
          only: () => true,
          value: query.get('location_id') ?? '',
        }),
        { name: 'kind', label: 'Kind', type: 'select', options: [{ value: '', label: 'Any kind' }, ...KINDS] },
        { name: 'batch_code', label: 'Batch code' },
        { name: 'created_after', label: 'From', type: 'datetime-local' },
        { name: 'created_before', label: 'Until', type: 'datetime-local' },
      ],
      toQuery: (v) => ({
        product_id: str(v.product_id),
        location_id: str(v.location_id),
        kind: str(v.kind),
        batch_code: str(v.batch_code).trim(),
        created_after: fromLocalInput(str(v.created_after)),
        created_before: fromLocalInput(str(v.created_before)),
      }),
      columns: [
        { label: '#', cell: (m) => String(m.seq), class: 'num' },
        { label: 'When', sort: 'created_at', cell: (m) => time(m.created_at) },
        { label: 'Kind', sort: 'kind', cell: (m) => badge(m.kind, KIND_TONES[m.kind] ?? 'muted') },
        { label: 'Product', cell: (m) => productName(m.product_id) },
        { label: 'From → to', cell: (m) => [locationName(m.from_location_id), ' → ', locationName(m.to_location_id)] },
        {
          label: 'Quantity',
          sort: 'quantity',
          class: 'num',
          cell: (m) => [
            String(m.quantity),
            m.batch_id ? [h('br'), h('span', { class: 'muted small' }, 'batch ', h('strong', null, m.batch_code ?? 'unknown'))] : null,
            m.item_ids ? [h('br'), h('span', { class: 'muted small' }, `${m.item_ids.length} item(s)`)] : null,
          ],
        },
        { label: 'Reason', cell: (m) => m.reason || '—', class: 'wide' },
        {
          label: 'By',
          cell: (m) => [
            m.actor.name,
            m.actor.kind === 'user' && m.actor.email ? [h('br'), h('span', { class: 'muted small' }, m.actor.email)] : null,
            m.actor.kind === 'api_key' && m.actor.user ? [h('br'), h('span', { class: 'muted small' }, `signed in: ${m.actor.user.username}`)] : null,
          ],
        },
      ],
    });
    root.append(list.el);
    await list.load();
  },
};

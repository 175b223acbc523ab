/**
 * Serialized items of SERIALIZED products. Adding one books one unit in through the ledger; moving and
 * retiring items are bookings (Stock screen). A serial number can be corrected.
 */
import { patch, post } from '../api.js';
import { h, time } from '../dom.js';
import { Form, formDialog, idempotencyKeys, text } from '../form.js';
import { PagedList } from '../list.js';
import { loadLocations, loadProducts, locationLookup, locationOptions, names, productLabel, productLookup, productOptions } from '../model.js';
import type { Screen } from '../screen.js';
import { badge, button, notify, panel, screenHeader } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

type Item = Schema<'Item'>;

export const screen: Screen = {
  path: 'items',
  title: 'Items',
  group: 'Stock',
  async render({ root, query }) {
    root.append(screenHeader('Items', 'The serialized units of SERIALIZED products. Move or retire them from the Stock screen (transfer, remove).'));
    const [products, locations] = await Promise.all([loadProducts(), loadLocations()]);
    const serialized = (p: { profile: string }) => p.profile === 'SERIALIZED';
    const productName = names(products, productLabel);
    const locationName = names(locations, (l) => l.name);

    const list: PagedList<Item> = new PagedList<Item>({
      path: '/api/v1/items/',
      search: 'Search serial number',
      sort: { field: 'created_at', descending: false },
      caption: 'Items',
      empty: 'No items match.',
      initial: { product_id: query.get('product_id') ?? '' },
      filters: [
        { name: 'product_id', label: 'Product', type: 'select', options: productOptions(products, 'All serialized products', serialized), lookup: productLookup('All serialized products', serialized) },
        { name: 'location_id', label: 'Location', type: 'select', options: locationOptions(locations, 'All locations'), lookup: locationLookup('All locations') },
        { name: 'is_active', label: 'Status', type: 'select', options: [{ value: 'true', label: 'Active' }, { value: 'false', label: 'Retired' }] },
      ],
      columns: [
        { label: 'Serial number', sort: 'serial_number', cell: (i) => h('strong', null, i.serial_number) },
        { label: 'Product', cell: (i) => productName(i.product_id), class: 'wide' },
        { label: 'Location', cell: (i) => (i.location_id ? locationName(i.location_id) : '—') },
        { label: 'Status', cell: (i) => (i.is_active ? badge('active', 'ok') : [badge('retired'), ' ', time(i.retired_at)]) },
        { label: 'Added', sort: 'created_at', cell: (i) => time(i.created_at) },
        {
          label: 'Actions',
          class: 'actions',
          cell: (i) =>
            button(
              'Correct serial',
              () =>
                formDialog(`Correct serial number ${i.serial_number}`, {
                  fields: [{ name: 'serial_number', label: 'Serial number', required: true, value: i.serial_number }],
                  submitLabel: 'Save serial number',
                  save: (values) => patch(`/api/v1/items/${i.id}/`, { serial_number: text(values.serial_number) ?? '' }),
                  after: async () => {
                    notify('Serial number saved.');
                    await list.reload();
                  },
                }),
              { label: `Correct serial number ${i.serial_number}` },
            ),
        },
      ],
    });

    const form = new Form({
      label: 'New item',
      fields: [
        { name: 'product_id', label: 'Product', type: 'select', required: true, options: productOptions(products, 'Choose a serialized product', (p) => serialized(p) && p.is_active), lookup: productLookup('Choose a serialized product', (p) => serialized(p) && p.is_active) },
        { name: 'location_id', label: 'Location', type: 'select', required: true, options: locationOptions(locations, 'Choose a location'), lookup: locationLookup('Choose a location') },
        { name: 'serial_number', label: 'Serial number', required: true },
        { name: 'reason', label: 'Reason' },
      ],
      submitLabel: 'Add item',
      onSubmit: async (values) => {
        const created = await post<Item>(
          '/api/v1/items/',
          { product_id: values.product_id, location_id: values.location_id, serial_number: text(values.serial_number) ?? '', reason: text(values.reason) ?? '' },
          keys.options(),
        );
        keys.next();
        notify(`Item ${created.serial_number} added and booked in.`);
        await list.reload();
      },
    });
    const keys = idempotencyKeys(form);

    root.append(panel('New item', form.el), list.el);
    if (!products.some(serialized)) root.append(h('p', { class: 'muted' }, 'No SERIALIZED products yet.'));
    await list.load();
  },
};

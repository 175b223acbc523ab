/**
 * Serialized items of SERIALIZED products. Adding one books one unit in through the ledger; moving and
 * retiring items are bookings (Stock screen). A serial number can be corrected.
 */
import { patch, post } from '../api.js';
import { h, time } from '../dom.js';
import { Form, formDialog, idempotencyKeys, text } from '../form.js';
import { PagedList } from '../list.js';
import { locationNameCell, locationPicker, productLabel, productNameCell, productPicker } from '../model.js';
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
    const productName = productNameCell(productLabel);
    const locationName = locationNameCell();

    const list: PagedList<Item> = new PagedList<Item>({
      path: '/api/v1/items/',
      search: 'Search serial number',
      sort: { field: 'created_at', descending: false },
      caption: 'Items',
      empty: 'No items match.',
      initial: { product_id: query.get('product_id') ?? '' },
      filters: [
        productPicker({
          name: 'product_id',
          label: 'Product',
          empty: 'All serialized products',
          query: { profile: 'SERIALIZED' },
          value: query.get('product_id') ?? '',
        }),
        locationPicker({ name: 'location_id', label: 'Location', empty: 'All locations' }),
        {
          name: 'is_active',
          label: 'Status',
          type: 'select',
          options: [
            { value: 'true', label: 'Active' },
            { value: 'false', label: 'Retired' },
          ],
        },
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
        productPicker({
          name: 'product_id',
          label: 'Product',
          required: true,
          empty: 'Choose a serialized product',
          query: { profile: 'SERIALIZED', is_active: true },
        }),
        locationPicker({ name: 'location_id', label: 'Location', required: true, empty: 'Choose a location' }),
        { name: 'serial_number', label: 'Serial number', required: true },
        { name: 'reason', label: 'Reason' },
      ],
      submitLabel: 'Add item',
      onSubmit: async (values) => {
        const created = await post<Item>(
          '/api/v1/items/',
          {
            product_id: values.product_id,
            location_id: values.location_id,
            serial_number: text(values.serial_number) ?? '',
            reason: text(values.reason) ?? '',
          },
          keys.options(),
        );
        keys.next();
        notify(`Item ${created.serial_number} added and booked in.`);
        await list.reload();
      },
    });
    const keys = idempotencyKeys(form);

    root.append(panel('New item', form.el), list.el);
    await list.load();
  },
};

/** Batches of BATCH products: codes, expiry dates and remaining stock (stock arrives through bookings). */
import { patch, post } from '../api.js';
import { h, time } from '../dom.js';
import { FieldSpec, Form, formDialog, text } from '../form.js';
import { PagedList } from '../list.js';
import { productLabel, productNameCell, productPicker } from '../model.js';
import type { Screen } from '../screen.js';
import { actions, badge, button, notify, panel, screenHeader } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

type Batch = Schema<'Batch'>;

const today = () => new Date().toISOString().slice(0, 10);

export const screen: Screen = {
  path: 'batches',
  title: 'Batches',
  group: 'Stock',
  async render({ root, query, go }) {
    root.append(screenHeader('Batches', 'Batches of BATCH products, earliest expiry first. Book stock into a batch from the Stock screen.'));
    const productName = productNameCell(productLabel);

    const batchFields = (batch?: Batch): FieldSpec[] => [
      { name: 'code', label: 'Batch code', required: true, value: batch?.code },
      { name: 'expiration_date', label: 'Expiration date', type: 'date', value: batch?.expiration_date ?? '', help: 'Optional; empty: no expiry.' },
    ];

    const list: PagedList<Batch> = new PagedList<Batch>({
      path: '/api/v1/batches/',
      search: 'Search batch code',
      sort: { field: 'expiration_date', descending: false },
      caption: 'Batches',
      empty: 'No batches match.',
      // The overview links here with `has_stock` and `expires_before` (docs/api/overview-and-appearance.md).
      initial: Object.fromEntries(['product_id', 'has_stock', 'expires_before'].map((k) => [k, query.get(k) ?? ''])),
      filters: [
        productPicker({ name: 'product_id', label: 'Product', empty: 'All batch products', query: { profile: 'BATCH' }, value: query.get('product_id') ?? '' }),
        {
          name: 'has_stock',
          label: 'Stock',
          type: 'select',
          options: [
            { value: '', label: 'With or without stock' },
            { value: 'true', label: 'With stock' },
            { value: 'false', label: 'Empty' },
          ],
        },
        { name: 'expires_before', label: 'Expires before', type: 'date' },
      ],
      columns: [
        { label: 'Code', sort: 'code', cell: (b) => h('strong', null, b.code) },
        { label: 'Product', cell: (b) => productName(b.product_id), class: 'wide' },
        {
          label: 'Expires',
          sort: 'expiration_date',
          cell: (b) => (b.expiration_date ? [b.expiration_date, b.expiration_date < today() ? [' ', badge('expired', 'bad')] : null] : 'no expiry'),
        },
        { label: 'Remaining', cell: (b) => b.stock_display, class: 'num' },
        { label: 'Created', sort: 'created_at', cell: (b) => time(b.created_at) },
        {
          label: 'Actions',
          class: 'actions',
          cell: (b) =>
            actions(
              button(
                'Edit',
                () =>
                  formDialog(`Edit batch ${b.code}`, {
                    fields: batchFields(b),
                    submitLabel: 'Save batch',
                    save: (values) => patch(`/api/v1/batches/${b.id}/`, { code: text(values.code) ?? '', expiration_date: values.expiration_date || null }),
                    after: async (values) => {
                      notify(`Batch ${text(values.code)} saved.`);
                      await list.reload();
                    },
                  }),
                { label: `Edit batch ${b.code}` },
              ),
              button('Movements', () => go(`#/movements?batch_code=${encodeURIComponent(b.code)}`), { label: `Movements of batch ${b.code}` }),
            ),
        },
      ],
    });

    const form = new Form({
      label: 'New batch',
      fields: [
        productPicker({ name: 'product_id', label: 'Product', required: true, empty: 'Choose a batch product', query: { profile: 'BATCH', is_active: true } }),
        ...batchFields(),
      ],
      submitLabel: 'Create batch',
      onSubmit: async (values) => {
        const created = await post<Batch>('/api/v1/batches/', {
          product_id: values.product_id,
          code: text(values.code) ?? '',
          ...(values.expiration_date ? { expiration_date: values.expiration_date } : {}),
        });
        notify(`Batch ${created.code} created.`);
        await list.reload();
      },
    });

    root.append(panel('New batch', form.el), list.el);
    await list.load();
  },
};

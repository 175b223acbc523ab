/** Work orders: create, edit, and move through their statuses (OPEN ⇄ IN_PROGRESS → DONE or CANCELLED). */
import { patch, post } from '../api.js';
import { h, time } from '../dom.js';
import { FieldSpec, Form, Values, formDialog, idempotencyKeys, inputValue, num, text } from '../form.js';
import { PagedList } from '../list.js';
import { productNameCell, productPicker } from '../model.js';
import type { Screen } from '../screen.js';
import { actions, button, notify, panel, screenHeader, statusBadge } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

/** The core work order is the widget's with its timestamps (docs/api/catalog-and-records.md "Work orders, batches, items"). */
type WorkOrder = Schema<'WorkOrder'>;

const STATUSES = ['OPEN', 'IN_PROGRESS', 'DONE', 'CANCELLED'];
/** docs/api/catalog-and-records.md: the moves each status allows; DONE and CANCELLED are final. */
const NEXT: Record<string, string[]> = { OPEN: ['IN_PROGRESS', 'DONE', 'CANCELLED'], IN_PROGRESS: ['OPEN', 'DONE', 'CANCELLED'], DONE: [], CANCELLED: [] };
const VERB: Record<string, string> = { OPEN: 'Reopen', IN_PROGRESS: 'Start', DONE: 'Done', CANCELLED: 'Cancel' };

function orderFields(order?: WorkOrder): FieldSpec[] {
  return [
    order
      ? { name: 'number', label: 'Number', required: true, value: order.number, help: 'Unique in the company.' }
      : { name: 'number', label: 'Number', placeholder: 'WO-0001', help: 'Unique in the company. Leave empty for the next number (WO-0001, WO-0002, …).' },
    { name: 'title', label: 'Title', required: true, value: order?.title },
    productPicker({ name: 'product_id', label: 'Product', empty: 'No product', value: order?.product_id ?? '' }),
    { name: 'quantity', label: 'Quantity', type: 'number', min: 0, value: inputValue(order?.quantity) },
    { name: 'due_date', label: 'Due date', type: 'date', value: order?.due_date ?? '' },
  ];
}

const orderBody = (v: Values) => ({
  number: text(v.number),
  title: text(v.title) ?? '',
  product_id: v.product_id || null,
  quantity: num(v.quantity) ?? null,
  due_date: v.due_date || null,
});

export const screen: Screen = {
  path: 'work-orders',
  title: 'Work orders',
  group: 'Operations',
  async render({ root }) {
    root.append(screenHeader('Work orders', 'Open and in-progress orders are listed to the widget; DONE and CANCELLED are final.'));
    const productName = productNameCell();

    const move = (o: WorkOrder, status: string) =>
      button(
        VERB[status],
        async () => {
          await patch(`/api/v1/work-orders/${o.id}/`, { status });
          notify(`Work order ${o.number} is ${status}.`);
          await list.reload();
        },
        { label: `${VERB[status]} work order ${o.number}`, kind: status === 'CANCELLED' ? 'danger' : 'secondary' },
      );

    const list: PagedList<WorkOrder> = new PagedList<WorkOrder>({
      path: '/api/v1/work-orders/',
      search: 'Search number or title',
      caption: 'Work orders',
      empty: 'No work orders match.',
      filters: [
        { name: 'status', label: 'Status', type: 'select', options: [{ value: '', label: 'Any status' }, ...STATUSES] },
        productPicker({ name: 'product_id', label: 'Product', empty: 'Any product' }),
      ],
      columns: [
        { label: 'Number', sort: 'number', cell: (o) => h('strong', null, o.number) },
        { label: 'Title', cell: (o) => o.title, class: 'wide' },
        { label: 'Status', sort: 'status', cell: (o) => statusBadge(o.status) },
        { label: 'Product', cell: (o) => productName(o.product_id) },
        { label: 'Quantity', cell: (o) => (o.quantity === null ? '—' : String(o.quantity)), class: 'num' },
        { label: 'Due', sort: 'due_date', cell: (o) => o.due_date ?? '—' },
        { label: 'Updated', cell: (o) => time(o.updated_at) },
        {
          label: 'Actions',
          class: 'actions',
          cell: (o) =>
            actions(
              NEXT[o.status]?.map((s) => move(o, s)),
              NEXT[o.status]?.length
                ? button(
                    'Edit',
                    () =>
                      formDialog(`Edit work order ${o.number}`, {
                        fields: orderFields(o),
                        submitLabel: 'Save work order',
                        save: (values) => patch(`/api/v1/work-orders/${o.id}/`, orderBody(values)),
                        after: async (values) => {
                          notify(`Work order ${text(values.number)} saved.`);
                          await list.reload();
                        },
                      }),
                    { label: `Edit work order ${o.number}` },
                  )
                : null,
            ),
        },
      ],
    });

    const form = new Form({
      label: 'New work order',
      fields: orderFields(),
      submitLabel: 'Create work order',
      onSubmit: async (values) => {
        const created = await post<WorkOrder>('/api/v1/work-orders/', orderBody(values), keys.options());
        keys.next();
        notify(`Work order ${created.number} created.`);
        await list.reload();
      },
    });
    // A retry whose outcome is unknown carries the key, so it never creates a second order.
    const keys = idempotencyKeys(form, 'work order');
    root.append(panel('New work order', form.el), list.el);
    await list.load();
  },
};

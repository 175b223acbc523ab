/**
 * Stock: the calculated levels, and bookings through the core ledger endpoint `POST /api/v1/movements/`.
 * An addition is a movement from the company's virtual `Inbound` location, a removal one to `Outbound`, a
 * transfer one between two physical locations. Each booking carries an `Idempotency-Key`, so sending the same
 * form again after a lost answer books nothing twice.
 */
import { Page, get, post } from '../api.js';
import { h } from '../dom.js';
import { Form, Values, compact, idempotencyKeys, lines, num, str, text } from '../form.js';
import { PagedList } from '../list.js';
import { Location, Product, locationPicker, productById, productPicker } from '../model.js';
import type { Screen } from '../screen.js';
import { button, notify, panel, screenHeader } from '../ui.js';
import type { Answer, Schema } from '../../kit/api-types.js';

type StockRow = Schema<'StockLevel'>;

type Operation = 'add' | 'remove' | 'transfer';

function systemLocation(locations: Location[], name: 'Inbound' | 'Outbound'): Location {
  const found = locations.find((l) => l.is_system && l.type === 'VIRTUAL' && l.name === name);
  if (!found) throw new Error(`The company has no ${name} system location.`);
  return found;
}

/** The body of `POST /api/v1/movements/` for the booking form. */
function movementBody(values: Values, product: Product | undefined, locations: Location[]): Record<string, unknown> {
  const op = values.operation as Operation;
  const from = op === 'add' ? systemLocation(locations, 'Inbound').id : op === 'remove' ? values.location_id : values.from_location_id;
  const to = op === 'add' ? values.location_id : op === 'remove' ? systemLocation(locations, 'Outbound').id : values.to_location_id;
  const body: Record<string, unknown> = compact({
    product_id: values.product_id,
    from_location_id: from,
    to_location_id: to,
    quantity: num(values.quantity),
    reason: text(values.reason),
  });
  if (product?.profile === 'BATCH') {
    if (op === 'add' && text(values.batch_code)) body.batch = compact({ code: text(values.batch_code), expiration_date: text(values.batch_expiration_date) });
    if (op !== 'add' && values.batch_id) body.batch_id = values.batch_id;
  }
  if (product?.profile === 'SERIALIZED') {
    const serials = lines(values.serial_numbers);
    if (op === 'add' && serials.length) body.serial_numbers = serials;
    if (op !== 'add' && Array.isArray(values.item_ids) && values.item_ids.length) body.item_ids = values.item_ids;
  }
  return body;
}

export const screen: Screen = {
  path: 'stock',
  title: 'Stock',
  group: 'Stock',
  async render({ root, query, go }) {
    root.append(screenHeader('Stock', 'Levels are calculated from the movement ledger; every booking below adds a movement.'));
    // Only what the screen needs: the virtual locations additions and removals book against, and whether there is
    // an active product at all. The pickers search as one types; the chosen product is read by id (cached).
    const [virtual, anyActive] = await Promise.all([
      get<Page<Location>>('/api/v1/locations/', { type: 'VIRTUAL', page_size: 50 }),
      get<Page<Product>>('/api/v1/product-models/', { is_active: true, page_size: 1 }),
    ]);
    const locations = virtual.results;
    const chosenProduct = async (): Promise<Product | undefined> => {
      const id = form.control<HTMLSelectElement>('product_id').value;
      return id ? ((await productById(id)) ?? undefined) : undefined;
    };
    const initialProduct = query.get('product_id') ?? '';

    const form = new Form({
      label: 'Book stock',
      fields: [
        {
          name: 'operation',
          label: 'Booking',
          type: 'select',
          options: [
            { value: 'add', label: 'Add stock (from Inbound)' },
            { value: 'remove', label: 'Remove stock (to Outbound)' },
            { value: 'transfer', label: 'Transfer between locations' },
          ],
          value: 'add',
        },
        productPicker({ name: 'product_id', label: 'Product', required: true, empty: 'Choose a product', query: { is_active: true }, value: initialProduct }),
        locationPicker({ name: 'location_id', label: 'Location', required: true, empty: 'Choose a location', query: { is_active: true } }),
        {
          ...locationPicker({ name: 'from_location_id', label: 'From location', required: true, empty: 'Choose a location', query: { is_active: true } }),
          hidden: true,
        },
        {
          ...locationPicker({ name: 'to_location_id', label: 'To location', required: true, empty: 'Choose a location', query: { is_active: true } }),
          hidden: true,
        },
        {
          name: 'quantity',
          label: 'Quantity',
          type: 'number',
          min: 0,
          inputmode: 'decimal',
          help: 'For serialized products, leave empty to count the serial numbers or items.',
        },
        { name: 'batch_code', label: 'Batch code', hidden: true, help: 'Found by code, or created when new.' },
        { name: 'batch_expiration_date', label: 'Batch expiration date', type: 'date', hidden: true },
        { name: 'batch_id', label: 'Batch', type: 'select', options: [], hidden: true, help: 'Empty: the earliest-expiring batches first.' },
        { name: 'serial_numbers', label: 'Serial numbers', type: 'textarea', rows: 3, hidden: true, help: 'One per line; generated when empty.' },
        {
          name: 'item_ids',
          label: 'Items',
          type: 'select',
          multiple: true,
          size: 5,
          options: [],
          hidden: true,
          help: 'The serialized items to book out (Ctrl/⌘ or Shift to choose several).',
        },
        { name: 'reason', label: 'Reason', placeholder: 'e.g. delivery 4711' },
      ],
      submitLabel: 'Book',
      resetOnSuccess: false,
      mapPath: (path) => {
        const op = form.values().operation as Operation;
        if (op === 'add' && path === 'to_location_id') return 'location_id';
        if (op === 'remove' && path === 'from_location_id') return 'location_id';
        if (path.startsWith('batch.')) return path === 'batch.code' ? 'batch_code' : 'batch_expiration_date';
        return path;
      },
      onSubmit: async (values) => {
        const productId = str(values.product_id);
        const product = productId ? ((await productById(productId)) ?? undefined) : undefined;
        const answer = await post<Answer<'createMovement'>>('/api/v1/movements/', movementBody(values, product, locations), keys.options());
        keys.next();
        notify(`Booked ${product ? product.sku : ''}: ${answer.movements.length} movement(s); total now ${answer.new_stock_display}.`);
        for (const name of ['quantity', 'reason', 'batch_code', 'batch_expiration_date', 'serial_numbers']) form.setValue(name, '');
        await Promise.all([list.reload(), loadChoices().catch(() => undefined)]);
      },
    });
    // A changed form is another request: it gets a new key (a replayed key with another body is refused).
    const keys = idempotencyKeys(form);

    /** The batches and items the chosen product has at the chosen place (for removals and transfers). */
    async function loadChoices(): Promise<void> {
      const v = form.values();
      const product = await chosenProduct();
      const op = v.operation as Operation;
      const at = op === 'transfer' ? str(v.from_location_id) : str(v.location_id);
      if (product?.profile === 'BATCH' && op !== 'add') {
        const batches = await get<Page<{ id: string; code: string; expiration_date: string | null; stock_display: string }>>('/api/v1/batches/', {
          product_id: product.id,
          has_stock: true,
          page_size: 500,
        });
        form.setOptions('batch_id', [
          { value: '', label: 'Earliest expiry first' },
          ...batches.results.map((b) => ({ value: b.id, label: `${b.code} · ${b.expiration_date ?? 'no expiry'} · ${b.stock_display}` })),
        ]);
      }
      if (product?.profile === 'SERIALIZED' && op !== 'add' && at) {
        const items = await get<Page<{ id: string; serial_number: string }>>('/api/v1/items/', { product_id: product.id, location_id: at, page_size: 500 });
        form.setOptions(
          'item_ids',
          items.results.map((i) => ({ value: i.id, label: i.serial_number })),
        );
      }
    }

    async function arrange(): Promise<void> {
      const op = form.control<HTMLSelectElement>('operation').value as Operation;
      const profile = (await chosenProduct())?.profile;
      form.show('location_id', op !== 'transfer');
      form.show('from_location_id', op === 'transfer');
      form.show('to_location_id', op === 'transfer');
      form.show('batch_code', profile === 'BATCH' && op === 'add');
      form.show('batch_expiration_date', profile === 'BATCH' && op === 'add');
      form.show('batch_id', profile === 'BATCH' && op !== 'add');
      form.show('serial_numbers', profile === 'SERIALIZED' && op === 'add');
      form.show('item_ids', profile === 'SERIALIZED' && op !== 'add');
      void loadChoices().catch(() => undefined);
    }
    const rearrange = () => void arrange().catch(() => undefined);
    for (const name of ['operation', 'product_id', 'location_id', 'from_location_id']) form.onChange(name, rearrange);
    await arrange();

    const list: PagedList<StockRow> = new PagedList<StockRow>({
      path: '/api/v1/stock/',
      search: 'Search SKU or name',
      sort: { field: 'name', descending: false },
      caption: 'Stock levels',
      empty: 'No stock matches.',
      // The overview links here with `below_min=true` (docs/api/overview-and-appearance.md).
      initial: { product_id: initialProduct, location_id: query.get('location_id') ?? '', below_min: query.get('below_min') ?? '' },
      filters: [
        productPicker({ name: 'product_id', label: 'Product', empty: 'All products', value: initialProduct }),
        locationPicker({
          name: 'location_id',
          label: 'Location',
          empty: 'All locations',
          value: query.get('location_id') ?? '',
          help: 'Totals then count this location only.',
        }),
        {
          name: 'below_min',
          label: 'Minimum stock',
          type: 'select',
          options: [
            { value: '', label: 'Any level' },
            { value: 'true', label: 'Below minimum' },
            { value: 'false', label: 'At or above minimum, or none set' },
          ],
        },
      ],
      columns: [
        { label: 'Product', sort: 'name', cell: (s) => [h('strong', null, s.sku), ' ', s.name], class: 'wide' },
        { label: 'Profile', cell: (s) => s.profile },
        { label: 'Total', cell: (s) => h('strong', null, s.stock_display), class: 'num' },
        {
          label: 'By location',
          cell: (s) =>
            s.locations.length
              ? h(
                  'ul',
                  { class: 'plain' },
                  s.locations.map((l) => h('li', null, `${l.location_name}: ${l.stock_display}`)),
                )
              : '—',
        },
        {
          label: 'Ledger',
          class: 'actions',
          cell: (s) => button('Movements', () => go(`#/movements?product_id=${s.product_id}`), { label: `Movements of ${s.sku}` }),
        },
      ],
    });

    root.append(panel('Book stock', form.el, true), list.el);
    if (!anyActive.count) root.insertBefore(h('p', { class: 'notice notice-info' }, 'Create a product first (Products).'), root.children[1]);
    await list.load();
  },
};

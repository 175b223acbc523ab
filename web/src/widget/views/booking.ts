/**
 * The booking form of a product: add, subtract, set (count), signed move and transfer, with what each
 * profile needs (a batch for BATCH, serial numbers or items for SERIALIZED). One request per action
 * (action.ts); the answer's new `stock_display` is shown and read out, and every refusal's message too.
 */
import { FormProblem, guardSubmit } from '../action.js';
import type { Ctx } from '../context.js';
import { formatQuantity } from '../context.js';
import { Child, field, h, option, replaceChildren, uid } from '../dom.js';
import { showSuccess } from '../notice.js';
import type { Batch, BookingAnswer, Item, Location, ProductDetail } from '../types.js';

export type Operation = 'add' | 'subtract' | 'set' | 'move' | 'transfer';

const OPERATIONS: Array<{ op: Operation; label: string; button: string; hint: string }> = [
  { op: 'add', label: 'Add', button: 'Add stock', hint: 'Stock arrives at a location.' },
  { op: 'subtract', label: 'Subtract', button: 'Subtract stock', hint: 'Stock leaves a location.' },
  { op: 'set', label: 'Set', button: 'Set stock', hint: 'Record the stock you counted at a location.' },
  { op: 'move', label: 'Move', button: 'Book move', hint: 'An inbound (+) or outbound (−) adjustment at a location.' },
  { op: 'transfer', label: 'Transfer', button: 'Transfer stock', hint: 'Stock moves from one location to another.' },
];

export interface BookingData {
  product: ProductDetail;
  locations: Location[];
  items: Item[] | null;
  batches: Batch[] | null;
}

export interface BookingSection {
  element: HTMLElement;
  /** New data after a refresh: the fields are rebuilt, keeping what was chosen and typed. */
  update(data: BookingData): void;
}

interface FormState {
  op: Operation;
  direction: 'in' | 'out';
  locationId: string;
  toLocationId: string;
  quantity: string;
  reason: string;
  batchId: string;
  batchCode: string;
  batchExpiry: string;
  serials: string;
  itemIds: Set<string>;
}

export function operationsFor(product: ProductDetail): Operation[] {
  // Counting (`set`) names no items: the service refuses it for SERIALIZED products.
  return OPERATIONS.map((o) => o.op).filter((op) => !(op === 'set' && product.profile === 'SERIALIZED'));
}

export function bookingSection(ctx: Ctx, initial: BookingData, notice: HTMLElement, onBooked: () => Promise<void>): BookingSection {
  let data = initial;
  const allowed = operationsFor(data.product);
  const remembered = ctx.lastBooking.operation as Operation | undefined;
  const state: FormState = {
    op: remembered && allowed.includes(remembered) ? remembered : 'add',
    direction: 'in',
    locationId: ctx.lastBooking.locationId ?? '',
    toLocationId: ctx.lastBooking.toLocationId ?? '',
    quantity: '',
    reason: '',
    batchId: '',
    batchCode: '',
    batchExpiry: '',
    serials: '',
    itemIds: new Set(),
  };

  const groupName = uid('operation');
  const hint = h('p', { class: 'hint op-hint', id: uid('op-hint') });
  const radios = allowed.map((op) => {
    const meta = OPERATIONS.find((o) => o.op === op)!;
    const input = h('input', { type: 'radio', name: groupName, value: op, id: uid('op') });
    input.checked = op === state.op;
    input.addEventListener('change', () => {
      if (!input.checked) return;
      state.op = op;
      renderFields();
    });
    return h('span', { class: 'segment' }, input, h('label', { for: input.id }, meta.label));
  });
  const opFieldset = h('fieldset', { class: 'segmented', 'aria-describedby': hint.id }, h('legend', {}, 'Operation'), ...radios);
  const fields = h('div', { class: 'booking-fields' });
  const submit = h('button', { type: 'submit', class: 'primary' });
  const form = h('form', { class: 'booking-form' }, opFieldset, hint, fields, h('div', { class: 'actions' }, submit));
  const element = h('section', { class: 'panel booking', 'aria-labelledby': uid('booking-title') });
  const title = h('h3', { id: element.getAttribute('aria-labelledby')! }, 'Book stock');
  element.append(title, form, notice);

  const profile = () => data.product.profile;
  const stockAt = (locationId: string) => data.product.locations.find((l) => l.location_id === locationId)?.quantity ?? 0;
  const show = (quantity: number) => formatQuantity(quantity, data.product.decimals, data.product.unit);
  const locationName = (id: string) => data.locations.find((l) => l.id === id)?.name ?? 'the location';
  const outgoing = () => state.op === 'subtract' || state.op === 'transfer' || (state.op === 'move' && state.direction === 'out');

  function locationSelect(label: string, key: 'locationId' | 'toLocationId', onChange?: () => void): HTMLDivElement {
    const select = h('select', { name: key, required: true });
    for (const l of data.locations) select.appendChild(option(l.id, `${l.name} (${show(stockAt(l.id))})`, l.id === state[key]));
    select.addEventListener('change', () => {
      state[key] = select.value;
      onChange?.();
    });
    return field(label, select);
  }

  function quantityInput(label: string, opts: { min: number; required: boolean; hint?: string }): HTMLDivElement {
    const decimals = data.product.decimals;
    const step = decimals > 0 ? (1 / 10 ** decimals).toFixed(decimals) : '1';
    const input = h('input', {
      type: 'number',
      name: 'quantity',
      inputmode: decimals > 0 ? 'decimal' : 'numeric',
      min: opts.min === 0 ? '0' : step,
      step,
      required: opts.required,
      autocomplete: 'off',
      value: state.quantity,
    });
    input.addEventListener('input', () => (state.quantity = input.value));
    return field(`${label} (${data.product.unit})`, input, opts.hint);
  }

  function batchSelect(required: boolean): HTMLDivElement {
    const select = h('select', { name: 'batch_id', required });
    if (!required) select.appendChild(option('', 'Earliest expiry first (automatic)', state.batchId === ''));
    else select.appendChild(option('', 'Choose a batch', state.batchId === ''));
    for (const b of data.batches ?? []) {
      select.appendChild(option(b.id, `${b.code}${b.expiration_date ? `, expires ${b.expiration_date}` : ''} (${b.stock_display})`, b.id === state.batchId));
    }
    select.addEventListener('change', () => (state.batchId = select.value));
    return field(required ? 'Batch' : 'Batch (optional)', select);
  }

  function newBatchFields(): HTMLElement[] {
    const listId = uid('batches');
    const code = h('input', { type: 'text', name: 'batch_code', required: true, maxlength: '100', autocomplete: 'off', list: listId, value: state.batchCode });
    code.addEventListener('input', () => (state.batchCode = code.value));
    const expiry = h('input', { type: 'date', name: 'batch_expiry', value: state.batchExpiry });
    expiry.addEventListener('input', () => (state.batchExpiry = expiry.value));
    const datalist = h('datalist', { id: listId }, ...(data.batches ?? []).map((b) => h('option', { value: b.code })));
    return [field('Batch code', code, 'An existing batch code, or a new one.'), datalist, field('Expiry date (optional)', expiry)];
  }

  function serialsField(): HTMLDivElement {
    const area = h('textarea', { name: 'serial_numbers', rows: '3', autocomplete: 'off', spellcheck: 'false' });
    area.value = state.serials;
    area.addEventListener('input', () => (state.serials = area.value));
    return field('Serial numbers (optional, one per line)', area, 'Leave empty to have them generated.');
  }

  function itemsFieldset(locationId: string): HTMLElement {
    const here = (data.items ?? []).filter((i) => i.location_id === locationId);
    for (const id of [...state.itemIds]) if (!here.some((i) => i.id === id)) state.itemIds.delete(id);
    const legend = h('legend', {}, `Items at ${locationName(locationId)}`);
    if (here.length === 0) return h('fieldset', { class: 'items-pick' }, legend, h('p', { class: 'muted' }, 'No items here.'));
    const boxes = here.map((item) => {
      const box = h('input', { type: 'checkbox', name: 'item_ids', value: item.id, id: uid('item') });
      box.checked = state.itemIds.has(item.id);
      box.addEventListener('change', () => (box.checked ? state.itemIds.add(item.id) : state.itemIds.delete(item.id)));
      return h('div', { class: 'check' }, box, h('label', { for: box.id }, item.serial_number));
    });
    return h('fieldset', { class: 'items-pick' }, legend, ...boxes);
  }

  function reasonField(): HTMLDivElement {
    const input = h('input', { type: 'text', name: 'reason', maxlength: '500', autocomplete: 'off', value: state.reason });
    input.addEventListener('input', () => (state.reason = input.value));
    return field('Reason (optional)', input);
  }

  /** Chooses sensible locations: the remembered ones, else (for stock leaving) one that has stock. */
  function settleLocations(): void {
    const ids = data.locations.map((l) => l.id);
    if (!ids.includes(state.locationId)) {
      const withStock = data.product.locations.find((l) => ids.includes(l.location_id) && l.quantity > 0)?.location_id;
      state.locationId = (outgoing() ? withStock : undefined) ?? ids[0] ?? '';
    }
    if (!ids.includes(state.toLocationId) || state.toLocationId === state.locationId) {
      state.toLocationId = ids.find((id) => id !== state.locationId) ?? '';
    }
  }

  function renderFields(): void {
    const meta = OPERATIONS.find((o) => o.op === state.op)!;
    hint.textContent = meta.hint;
    if (!submit.disabled) submit.textContent = meta.button;
    submit.dataset.label = meta.button;
    const focusedName = fields.contains(document.activeElement) ? (document.activeElement as HTMLInputElement).name : undefined;
    if (data.locations.length === 0) {
      replaceChildren(fields, h('p', { class: 'muted' }, 'There are no locations yet. ', h('a', { href: '#/locations' }, 'Create a location'), ' first.'));
      submit.hidden = true;
      return;
    }
    submit.hidden = false;
    settleLocations();
    const serialized = profile() === 'SERIALIZED';
    const batch = profile() === 'BATCH';
    const parts: Child[] = [];
    const itemsBox = h('div', { class: 'items-box' });
    const refreshItems = (id: string) => replaceChildren(itemsBox, itemsFieldset(id));

    if (state.op === 'move') {
      const name = uid('direction');
      const dirs = (['in', 'out'] as const).map((dir) => {
        const input = h('input', { type: 'radio', name, value: dir, id: uid('dir') });
        input.checked = state.direction === dir;
        input.addEventListener('change', () => {
          if (!input.checked) return;
          state.direction = dir;
          renderFields();
        });
        return h('span', { class: 'segment' }, input, h('label', { for: input.id }, dir === 'in' ? 'In (+)' : 'Out (−)'));
      });
      parts.push(h('fieldset', { class: 'segmented' }, h('legend', {}, 'Direction'), ...dirs));
    }

    if (state.op === 'transfer') {
      parts.push(
        locationSelect('From', 'locationId', () => {
          if (serialized) refreshItems(state.locationId);
        }),
        locationSelect('To', 'toLocationId'),
      );
    } else {
      parts.push(
        locationSelect('Location', 'locationId', () => {
          if (serialized) refreshItems(state.locationId);
        }),
      );
    }

    if (state.op === 'set') {
      if (batch) parts.push(batchSelect(true));
      parts.push(quantityInput('Counted quantity', { min: 0, required: true }));
    } else if (outgoing()) {
      if (serialized) {
        refreshItems(state.locationId);
        parts.push(itemsBox);
      } else {
        if (batch) parts.push(batchSelect(false));
        parts.push(quantityInput('Quantity', { min: 1, required: true }));
      }
    } else {
      if (batch) parts.push(...newBatchFields());
      if (serialized) parts.push(quantityInput('Quantity', { min: 1, required: false, hint: 'Or list the serial numbers below.' }), serialsField());
      else parts.push(quantityInput('Quantity', { min: 1, required: true }));
    }
    parts.push(reasonField());
    replaceChildren(fields, ...parts);
    if (focusedName) (fields.querySelector(`[name="${focusedName}"]`) as HTMLElement | null)?.focus();
  }

  function quantityValue(required: boolean): number | undefined {
    const text = state.quantity.trim();
    if (text === '') {
      if (required) throw new FormProblem('Enter a quantity.');
      return undefined;
    }
    const value = Number(text);
    if (!Number.isFinite(value)) throw new FormProblem('The quantity must be a number.');
    return value;
  }

  function prepare() {
    if (!form.checkValidity()) {
      form.reportValidity();
      throw new FormProblem('Please check the highlighted fields.');
    }
    const product = data.product;
    const op = state.op;
    const serialized = product.profile === 'SERIALIZED';
    const batch = product.profile === 'BATCH';
    const reason = state.reason.trim();
    const base: Record<string, unknown> = reason ? { reason } : {};
    const itemIds = [...state.itemIds];
    const serials = state.serials
      .split(/\r?\n/)
      .map((s) => s.trim())
      .filter(Boolean);
    let path: string;
    let body: Record<string, unknown>;
    let amount: number;

    const incomingRefs = (): Record<string, unknown> => {
      if (batch) {
        const code = state.batchCode.trim();
        if (!code) throw new FormProblem('Enter a batch code.');
        const known = (data.batches ?? []).find((b) => b.code === code);
        if (known && !state.batchExpiry) return { batch_id: known.id };
        return { batch: { code, ...(state.batchExpiry ? { expiration_date: state.batchExpiry } : {}) } };
      }
      if (serialized && serials.length > 0) return { serial_numbers: serials };
      return {};
    };
    const outgoingRefs = (): Record<string, unknown> => {
      if (serialized) {
        if (itemIds.length === 0) throw new FormProblem('Choose the items.');
        return { item_ids: itemIds };
      }
      return batch && state.batchId ? { batch_id: state.batchId } : {};
    };

    if (op === 'transfer') {
      if (state.locationId === state.toLocationId) throw new FormProblem('Choose two different locations.');
      const quantity = serialized ? itemIds.length : quantityValue(true)!;
      amount = quantity;
      path = 'transfer/';
      body = { product_id: product.id, from_location_id: state.locationId, to_location_id: state.toLocationId, quantity, ...base, ...outgoingRefs() };
    } else if (op === 'move') {
      const out = state.direction === 'out';
      const quantity = out && serialized ? itemIds.length : quantityValue(!serialized || out);
      const refs = out ? outgoingRefs() : incomingRefs();
      const count = quantity ?? serials.length;
      if (count === 0) throw new FormProblem('Enter a quantity or serial numbers.');
      amount = count;
      path = 'move/';
      body = { product_id: product.id, location_id: state.locationId, quantity: out ? -count : count, ...base, ...refs };
    } else {
      path = `${product.id}/transaction/`;
      if (op === 'set') {
        const quantity = quantityValue(true)!;
        if (batch && !state.batchId) throw new FormProblem('Choose the batch you counted.');
        amount = quantity;
        // A compare-and-swap: if the stock moved since this screen showed it, the service answers 409 stock_changed.
        const expected = batch ? {} : { expected_quantity: stockAt(state.locationId) };
        body = { operation: 'set', location_id: state.locationId, quantity, ...expected, ...base, ...(batch ? { batch_id: state.batchId } : {}) };
      } else if (op === 'subtract') {
        const quantity = serialized ? itemIds.length : quantityValue(true)!;
        amount = quantity;
        body = { operation: 'subtract', location_id: state.locationId, quantity, ...base, ...outgoingRefs() };
      } else {
        const quantity = quantityValue(!serialized);
        const refs = incomingRefs();
        if (quantity === undefined && serials.length === 0) throw new FormProblem('Enter a quantity or serial numbers.');
        amount = quantity ?? serials.length;
        body = { operation: 'add', location_id: state.locationId, ...(quantity === undefined ? {} : { quantity }), ...base, ...refs };
      }
    }

    const from = state.locationId;
    const to = state.toLocationId;
    const direction = state.direction;
    return {
      signature: JSON.stringify([path, body]),
      send: async (idempotencyKey: string) => {
        const answer = await ctx.api.post<BookingAnswer>(path, body, idempotencyKey);
        ctx.lastBooking = { operation: op, locationId: from, toLocationId: to };
        ctx.invalidateProducts();
        const what = serialized && (op === 'subtract' || op === 'transfer' || (op === 'move' && direction === 'out')) ? `${amount} item${amount === 1 ? '' : 's'}` : show(amount);
        const done =
          op === 'add'
            ? `Added ${what} at ${locationName(from)}.`
            : op === 'subtract'
              ? `Subtracted ${what} at ${locationName(from)}.`
              : op === 'set'
                ? `Set the stock at ${locationName(from)} to ${what}.`
                : op === 'move'
                  ? `Moved ${what} ${direction === 'in' ? 'in at' : 'out of'} ${locationName(from)}.`
                  : `Transferred ${what} from ${locationName(from)} to ${locationName(to)}.`;
        const where =
          op === 'transfer'
            ? `${locationName(from)}: ${answer.from_stock_display}, ${locationName(to)}: ${answer.to_stock_display}`
            : `${locationName(from)}: ${answer.location_stock_display}`;
        const extra = [
          answer.items?.length ? ` Serial numbers: ${answer.items.map((i) => i.serial_number).join(', ')}.` : '',
          answer.batch ? ` Batch ${answer.batch.code}.` : '',
        ].join('');
        showSuccess(notice, `${done} New stock: `, h('strong', { class: 'new-stock' }, answer.new_stock_display), ` (${where}).${extra}`);
        ctx.announce(`${done} New stock: ${answer.new_stock_display}.`);
        state.serials = '';
        state.itemIds.clear();
        await onBooked();
      },
    };
  }

  guardSubmit(form, submit, 'Booking…', notice, prepare);
  renderFields();
  return {
    element,
    update(next: BookingData) {
      data = next;
      renderFields();
    },
  };
}

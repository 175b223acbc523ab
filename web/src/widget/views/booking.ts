/**
 * The booking form of a product: add, subtract, set (count), signed move and transfer. State → render: what
 * is chosen and typed lives in one state object (booking-request.ts makes the request from it); every change
 * updates the state and renders the form again with lit-html, which changes only what differs, so focus and
 * typing are kept. One request per action (action.ts: busy label, retries with the same Idempotency-Key, the
 * 429 wait); the answer's new `stock_display` is shown and read out, and every refusal's message too.
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import { type Prepared, FormProblem, actionGuard } from '../action.js';
import type { RequestOptions } from '../api.js';
import type { Ctx } from '../context.js';
import type { Batch } from '../types.js';
import { h, uid } from '../../kit/dom.js';
import { retryText } from '../../kit/messages.js';
import { errorText } from '../messages.js';
import {
  type BookingAnswer,
  type BookingData,
  type BookingRequest,
  type FormState,
  type Operation,
  bookedText,
  bookingRequest,
  isOutgoing,
  locationName,
  operationsFor,
  settle,
  showQuantity,
  stockAt,
} from './booking-request.js';

export { type BookingData, operationsFor } from './booking-request.js';

const OPERATIONS: Record<Operation, { label: string; button: string; hint: string }> = {
  add: { label: 'Add', button: 'Add stock', hint: 'Stock arrives at a location.' },
  subtract: { label: 'Subtract', button: 'Subtract stock', hint: 'Stock leaves a location.' },
  set: { label: 'Set', button: 'Set stock', hint: 'Record the stock you counted at a location.' },
  move: { label: 'Move', button: 'Book move', hint: 'An inbound (+) or outbound (−) adjustment at a location.' },
  transfer: { label: 'Transfer', button: 'Transfer stock', hint: 'Stock moves from one location to another.' },
};

type Notice = { kind: 'ok' | 'error' | 'info'; content: TemplateResult | string } | null;

/** Everything the form is rendered from. */
interface View {
  data: BookingData;
  state: FormState;
  /** The button's label while an action is under way. */
  busy: string | null;
  notice: Notice;
  /** The prefix of the form's element ids. */
  id: string;
  /** Updates the state and renders. */
  set(change: Partial<FormState>): void;
  /** BATCH products: the batches with stock at the chosen location (with their quantity there), once loaded. */
  batchesHere(): Batch[] | 'loading' | 'failed';
}

export interface BookingSection {
  element: HTMLElement;
  /** New data after a refresh: the form renders again, keeping what was chosen and typed. */
  update(data: BookingData): void;
  /** Shows an error of the page around the form (a failed refresh). */
  showError(err: unknown): void;
}

type Control = HTMLInputElement & HTMLSelectElement & HTMLTextAreaElement;
const valueOf = (event: Event) => (event.target as Control).value;
const checkedOf = (event: Event) => (event.target as HTMLInputElement).checked;

// ----------------------------------------------------------------------------------------------- templates

function field(label: string, id: string, control: TemplateResult, hint?: string): TemplateResult {
  return html`<div class="field"><label for=${id}>${label}</label>${control}${hint ? html`<p class="hint" id=${`${id}-hint`}>${hint}</p>` : nothing}</div>`;
}

function segment(name: string, id: string, label: string, checked: boolean, pick: () => void): TemplateResult {
  return html`<span class="segment"><input type="radio" name=${name} id=${id} .checked=${live(checked)} @change=${(e: Event) => checkedOf(e) && pick()}><label for=${id}>${label}</label></span>`;
}

function operationPicker(v: View): TemplateResult {
  const segments = operationsFor(v.data.product).map((op) =>
    segment(`${v.id}-op`, `${v.id}-op-${op}`, OPERATIONS[op].label, v.state.op === op, () => v.set({ op })),
  );
  return html`<fieldset class="segmented" aria-describedby=${`${v.id}-op-hint`}><legend>Operation</legend>${segments}</fieldset>`;
}

function directionPicker(v: View): TemplateResult {
  const segments = (['in', 'out'] as const).map((dir) =>
    segment(`${v.id}-dir`, `${v.id}-dir-${dir}`, dir === 'in' ? 'In (+)' : 'Out (−)', v.state.direction === dir, () => v.set({ direction: dir })),
  );
  return html`<fieldset class="segmented"><legend>Direction</legend>${segments}</fieldset>`;
}

function locationSelect(v: View, label: string, key: 'locationId' | 'toLocationId'): TemplateResult {
  const id = `${v.id}-${key}`;
  const options = v.data.locations.map(
    (l) => html`<option value=${l.id} .selected=${live(l.id === v.state[key])}>${l.name} (${showQuantity(v.data, stockAt(v.data, l.id))})</option>`,
  );
  return field(label, id, html`<select id=${id} name=${key} required @change=${(e: Event) => v.set({ [key]: valueOf(e) })}>${options}</select>`);
}

function quantityInput(v: View, label: string, opts: { min: number; required: boolean; hint?: string }): TemplateResult {
  const { decimals, unit } = v.data.product;
  const step = decimals > 0 ? (1 / 10 ** decimals).toFixed(decimals) : '1';
  const id = `${v.id}-quantity`;
  const input = html`<input id=${id} type="number" name="quantity" inputmode=${decimals > 0 ? 'decimal' : 'numeric'} min=${opts.min === 0 ? '0' : step} step=${step} ?required=${opts.required} autocomplete="off" aria-describedby=${opts.hint ? `${id}-hint` : nothing} .value=${live(v.state.quantity)} @input=${(e: Event) => v.set({ quantity: valueOf(e) })}>`;
  return field(`${label} (${unit})`, id, input, opts.hint);
}

/** The batches with stock at the chosen location, with their quantity there: a batch elsewhere cannot be booked from here. */
function batchSelect(v: View, required: boolean): TemplateResult {
  const id = `${v.id}-batch`;
  const here = v.batchesHere();
  const label = required ? 'Batch' : 'Batch (optional)';
  if (here === 'loading' || here === 'failed') {
    const text = here === 'loading' ? 'Loading the batches here…' : 'The batches here could not be loaded';
    return field(label, id, html`<select id=${id} name="batch_id" disabled><option value="">${text}</option></select>`);
  }
  const where = locationName(v.data, v.state.locationId);
  const none = html`<option value="" .selected=${live(v.state.batchId === '')}>${here.length === 0 ? `No batch has stock at ${where}` : required ? 'Choose a batch' : 'Earliest expiry first (automatic)'}</option>`;
  const batches = here.map(
    (b) =>
      html`<option value=${b.id} .selected=${live(b.id === v.state.batchId)}>${b.code}${b.expiration_date ? `, expires ${b.expiration_date}` : ''} (${b.stock_display} here)</option>`,
  );
  return field(
    label,
    id,
    html`<select id=${id} name="batch_id" ?required=${required} @change=${(e: Event) => v.set({ batchId: valueOf(e) })}>${none}${batches}</select>`,
    `Batches with stock at ${where}.`,
  );
}

function newBatchFields(v: View): TemplateResult[] {
  const [codeId, expiryId, listId] = [`${v.id}-batch-code`, `${v.id}-batch-expiry`, `${v.id}-batches`];
  const code = html`<input id=${codeId} type="text" name="batch_code" required maxlength="100" autocomplete="off" list=${listId} aria-describedby=${`${codeId}-hint`} .value=${live(v.state.batchCode)} @input=${(e: Event) => v.set({ batchCode: valueOf(e) })}>`;
  const expiry = html`<input id=${expiryId} type="date" name="batch_expiry" .value=${live(v.state.batchExpiry)} @input=${(e: Event) => v.set({ batchExpiry: valueOf(e) })}>`;
  const known = html`<datalist id=${listId}>${(v.data.batches ?? []).map((b) => html`<option value=${b.code}></option>`)}</datalist>`;
  return [field('Batch code', codeId, code, 'An existing batch code, or a new one.'), known, field('Expiry date (optional)', expiryId, expiry)];
}

function serialsField(v: View): TemplateResult {
  const id = `${v.id}-serials`;
  const area = html`<textarea id=${id} name="serial_numbers" rows="3" autocomplete="off" spellcheck="false" aria-describedby=${`${id}-hint`} .value=${live(v.state.serials)} @input=${(e: Event) => v.set({ serials: valueOf(e) })}></textarea>`;
  return field('Serial numbers (optional, one per line)', id, area, 'Leave empty to have them generated.');
}

function itemsPicker(v: View): TemplateResult {
  const here = (v.data.items ?? []).filter((i) => i.location_id === v.state.locationId);
  const toggle = (id: string, on: boolean) => {
    const itemIds = new Set(v.state.itemIds);
    if (on) itemIds.add(id);
    else itemIds.delete(id);
    v.set({ itemIds });
  };
  const boxes = here.map((item) => {
    const id = `${v.id}-item-${item.id}`;
    return html`<div class="check"><input type="checkbox" name="item_ids" value=${item.id} id=${id} .checked=${live(v.state.itemIds.has(item.id))} @change=${(e: Event) => toggle(item.id, checkedOf(e))}><label for=${id}>${item.serial_number}</label></div>`;
  });
  const content = here.length === 0 ? html`<p class="muted">No items here.</p>` : boxes;
  return html`<div class="items-box"><fieldset class="items-pick"><legend>Items at ${locationName(v.data, v.state.locationId)}</legend>${content}</fieldset></div>`;
}

function reasonField(v: View): TemplateResult {
  const id = `${v.id}-reason`;
  return field(
    'Reason (optional)',
    id,
    html`<input id=${id} type="text" name="reason" maxlength="500" autocomplete="off" .value=${live(v.state.reason)} @input=${(e: Event) => v.set({ reason: valueOf(e) })}>`,
  );
}

/** The fields of the quantity and of what the profile needs (batches, serial numbers, items). */
function amountFields(v: View): Array<TemplateResult | TemplateResult[]> {
  const { profile } = v.data.product;
  const batch = profile === 'BATCH';
  if (v.state.op === 'set') return [...(batch ? [batchSelect(v, true)] : []), quantityInput(v, 'Counted quantity', { min: 0, required: true })];
  if (isOutgoing(v.state)) {
    if (profile === 'SERIALIZED') return [itemsPicker(v)];
    return [...(batch ? [batchSelect(v, false)] : []), quantityInput(v, 'Quantity', { min: 1, required: true })];
  }
  if (profile === 'SERIALIZED') return [quantityInput(v, 'Quantity', { min: 1, required: false, hint: 'Or list the serial numbers below.' }), serialsField(v)];
  return [...(batch ? newBatchFields(v) : []), quantityInput(v, 'Quantity', { min: 1, required: true })];
}

function fields(v: View): TemplateResult {
  if (v.data.locations.length === 0) return html`<p class="muted">There are no locations yet. <a href="#/locations">Create a location</a> first.</p>`;
  const where =
    v.state.op === 'transfer'
      ? [locationSelect(v, 'From', 'locationId'), locationSelect(v, 'To', 'toLocationId')]
      : [locationSelect(v, 'Location', 'locationId')];
  return html`${v.state.op === 'move' ? directionPicker(v) : nothing}${where}${amountFields(v)}${reasonField(v)}`;
}

function formTemplate(v: View): TemplateResult {
  const meta = OPERATIONS[v.state.op];
  const button = html`<button type="submit" class="primary" ?disabled=${v.busy !== null} ?hidden=${v.data.locations.length === 0}>${v.busy ?? meta.button}</button>`;
  return html`${operationPicker(v)}<p class="hint op-hint" id=${`${v.id}-op-hint`}>${meta.hint}</p><div class="booking-fields">${fields(v)}</div><div class="actions">${button}</div>`;
}

function noticeTemplate(notice: Notice): TemplateResult | typeof nothing {
  if (!notice) return nothing;
  if (notice.kind === 'error') return html`<p class="notice notice-error" role="alert">${notice.content}</p>`;
  return html`<p class=${notice.kind === 'ok' ? 'notice notice-ok' : 'notice'} role="status">${notice.content}</p>`;
}

// ------------------------------------------------------------------------------------------------- actions

function initialState(ctx: Ctx, data: BookingData): FormState {
  const remembered = ctx.lastBooking.operation as Operation | undefined;
  return {
    op: remembered && operationsFor(data.product).includes(remembered) ? remembered : 'add',
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
}

function bookedNotice(data: BookingData, req: BookingRequest, answer: BookingAnswer): { notice: Notice; spoken: string } {
  const { done, where, extra } = bookedText(data, req, answer);
  return {
    notice: { kind: 'ok', content: html`${done} New stock: <strong class="new-stock">${answer.new_stock_display}</strong> (${where}).${extra}` },
    spoken: `${done} New stock: ${answer.new_stock_display}.`,
  };
}

export function bookingSection(ctx: Ctx, initial: BookingData, onBooked: () => Promise<void>): BookingSection {
  const id = uid('booking');
  const form = h('form', { class: 'booking-form' });
  const noticeBox = h('div', { class: 'booking-notice' });
  const element = h('section', { class: 'panel booking', 'aria-labelledby': `${id}-title` }, h('h3', { id: `${id}-title` }, 'Book stock'), form, noticeBox);

  /** Batches with stock per location (BATCH products), loaded when a location is first chosen; cleared after each booking. */
  const batchesAt = new Map<string, Batch[] | 'loading' | 'failed'>();
  const v: View = {
    data: initial,
    state: initialState(ctx, initial),
    busy: null,
    notice: null,
    id,
    set(change) {
      Object.assign(v.state, change);
      update();
    },
    batchesHere() {
      const locationId = v.state.locationId;
      const known = batchesAt.get(locationId);
      if (known) return known;
      batchesAt.set(locationId, 'loading');
      ctx.api.get<{ batches: Batch[] }>('batches/', { product_id: v.data.product.id, location_id: locationId }).then(
        (r) => {
          if (batchesAt.get(locationId) !== 'loading') return; // cleared meanwhile by a booking: asked again on render
          batchesAt.set(locationId, r.batches);
          update();
        },
        () => {
          if (batchesAt.get(locationId) === 'loading') batchesAt.set(locationId, 'failed');
          update();
        },
      );
      return 'loading';
    },
  };
  function update(): void {
    settle(v.data, v.state);
    const here = v.data.product.profile === 'BATCH' && v.state.batchId ? batchesAt.get(v.state.locationId) : undefined;
    if (Array.isArray(here) && !here.some((b) => b.id === v.state.batchId)) v.state.batchId = '';
    render(formTemplate(v), form);
    if (v.busy === null) form.removeAttribute('aria-busy');
    else form.setAttribute('aria-busy', 'true');
  }
  /** A new notice element each time, so that the same message twice is announced twice. */
  function showNotice(notice: Notice): void {
    render(nothing, noticeBox);
    v.notice = notice;
    render(noticeTemplate(notice), noticeBox);
  }

  async function send(req: BookingRequest, options: RequestOptions): Promise<void> {
    const answer = await ctx.api.post<BookingAnswer>(req.path, req.body, options);
    ctx.lastBooking = { operation: req.op, locationId: req.from, toLocationId: req.to };
    ctx.invalidateProducts();
    const { notice, spoken } = bookedNotice(v.data, req, answer);
    showNotice(notice);
    ctx.announce(spoken);
    v.set({ serials: '', itemIds: new Set() });
    await onBooked();
  }

  function prepare(): Prepared {
    if (!form.checkValidity()) {
      form.reportValidity();
      throw new FormProblem('Please check the highlighted fields.');
    }
    const req = bookingRequest(v.data, v.state);
    return { signature: JSON.stringify([req.path, req.body]), send: (options) => send(req, options) };
  }

  const run = actionGuard(
    {
      busy(label) {
        v.busy = label;
        update();
      },
      retrying: (notice) => showNotice({ kind: 'info', content: retryText(notice) }),
      failed: (err) => showNotice({ kind: 'error', content: errorText(err, true) }),
    },
    'Booking…',
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(prepare);
  });
  update();
  return {
    element,
    update(data) {
      v.data = data;
      batchesAt.clear();
      update();
    },
    showError: (err) => showNotice({ kind: 'error', content: errorText(err) }),
  };
}

/**
 * What the booking form asks of the service, from its state alone (no DOM): the request of each operation
 * (add, subtract and set are `transaction/`, then `move/` and `transfer/`), with what each profile needs (a
 * batch for BATCH, serial numbers or items for SERIALIZED), and the sentence that reports a booking.
 */
import { FormProblem } from '../action.js';
import { formatQuantity } from '../context.js';
import type { Body } from '../../kit/api-types.js';
import type { Batch, Item, Location, MoveAnswer, ProductDetail, TransactionAnswer, TransferAnswer } from '../types.js';

export type Operation = 'add' | 'subtract' | 'set' | 'move' | 'transfer';

export interface BookingData {
  product: ProductDetail;
  locations: Location[];
  items: Item[] | null;
  batches: Batch[] | null;
}

/** Everything chosen and typed in the form. */
export interface FormState {
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

type TransactionBody = Body<'widgetBookTransaction'>;
type MoveBody = Body<'widgetMoveStock'>;
type TransferBody = Body<'widgetTransferStock'>;
type Refs = Pick<MoveBody, 'batch_id' | 'batch' | 'serial_numbers' | 'item_ids'>;

export interface BookingRequest {
  op: Operation;
  path: string;
  body: TransactionBody | MoveBody | TransferBody;
  /** How much it books: a quantity, or a count of items (`itemCount`). */
  amount: number;
  itemCount: boolean;
  from: string;
  to: string;
  direction: 'in' | 'out';
}

export type BookingAnswer = TransactionAnswer | MoveAnswer | TransferAnswer;

export function operationsFor(product: ProductDetail): Operation[] {
  // Counting (`set`) names no items: the service refuses it for SERIALIZED products.
  const all: Operation[] = ['add', 'subtract', 'set', 'move', 'transfer'];
  return all.filter((op) => !(op === 'set' && product.profile === 'SERIALIZED'));
}

/** Stock leaves the location: a subtraction, a transfer or a move out. */
export const isOutgoing = (state: Pick<FormState, 'op' | 'direction'>): boolean =>
  state.op === 'subtract' || state.op === 'transfer' || (state.op === 'move' && state.direction === 'out');

export const stockAt = (data: BookingData, locationId: string): number => data.product.locations.find((l) => l.location_id === locationId)?.quantity ?? 0;

export const locationName = (data: BookingData, id: string): string => data.locations.find((l) => l.id === id)?.name ?? 'the location';

export const showQuantity = (data: BookingData, quantity: number): string => formatQuantity(quantity, data.product.decimals, data.product.unit);

/**
 * Makes the choices valid for the data (after a change of operation, or new data after a booking): the
 * remembered locations, else (for stock leaving) one that has stock; two distinct ones for a transfer; only
 * items that are at the chosen location.
 */
export function settle(data: BookingData, state: FormState): void {
  const ids = data.locations.map((l) => l.id);
  if (!ids.includes(state.locationId)) {
    const withStock = data.product.locations.find((l) => ids.includes(l.location_id) && l.quantity > 0)?.location_id;
    state.locationId = (isOutgoing(state) ? withStock : undefined) ?? ids[0] ?? '';
  }
  if (!ids.includes(state.toLocationId) || state.toLocationId === state.locationId) {
    state.toLocationId = ids.find((id) => id !== state.locationId) ?? '';
  }
  const here = new Set((data.items ?? []).filter((i) => i.location_id === state.locationId).map((i) => i.id));
  for (const id of [...state.itemIds]) if (!here.has(id)) state.itemIds.delete(id);
}

function quantityValue(state: FormState, required: boolean): number | undefined {
  const text = state.quantity.trim();
  if (text === '') {
    if (required) throw new FormProblem('Enter a quantity.');
    return undefined;
  }
  const value = Number(text);
  if (!Number.isFinite(value)) throw new FormProblem('The quantity must be a number.');
  return value;
}

const serialsOf = (state: FormState): string[] =>
  state.serials
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);

/** What an addition names: a batch (known by code, or new), or serial numbers. */
function incomingRefs(data: BookingData, state: FormState): Refs {
  if (data.product.profile === 'BATCH') {
    const code = state.batchCode.trim();
    if (!code) throw new FormProblem('Enter a batch code.');
    const known = (data.batches ?? []).find((b) => b.code === code);
    if (known && !state.batchExpiry) return { batch_id: known.id };
    return { batch: { code, ...(state.batchExpiry ? { expiration_date: state.batchExpiry } : {}) } };
  }
  const serials = serialsOf(state);
  return data.product.profile === 'SERIALIZED' && serials.length > 0 ? { serial_numbers: serials } : {};
}

/** What stock leaving names: the items, or a batch (none: earliest expiry first). */
function outgoingRefs(data: BookingData, state: FormState): Refs {
  if (data.product.profile === 'SERIALIZED') {
    if (state.itemIds.size === 0) throw new FormProblem('Choose the items.');
    return { item_ids: [...state.itemIds] };
  }
  return data.product.profile === 'BATCH' && state.batchId ? { batch_id: state.batchId } : {};
}

const reasonOf = (state: FormState) => (state.reason.trim() ? { reason: state.reason.trim() } : {});

function transferRequest(data: BookingData, state: FormState): Pick<BookingRequest, 'path' | 'body' | 'amount'> {
  if (state.locationId === state.toLocationId) throw new FormProblem('Choose two different locations.');
  const quantity = data.product.profile === 'SERIALIZED' ? state.itemIds.size : quantityValue(state, true)!;
  const body: TransferBody = {
    product_id: data.product.id,
    from_location_id: state.locationId,
    to_location_id: state.toLocationId,
    quantity,
    ...reasonOf(state),
    ...outgoingRefs(data, state),
  };
  return { path: 'transfer/', body, amount: quantity };
}

function moveRequest(data: BookingData, state: FormState): Pick<BookingRequest, 'path' | 'body' | 'amount'> {
  const out = state.direction === 'out';
  const serialized = data.product.profile === 'SERIALIZED';
  const quantity = out && serialized ? state.itemIds.size : quantityValue(state, !serialized || out);
  const refs = out ? outgoingRefs(data, state) : incomingRefs(data, state);
  const count = quantity ?? serialsOf(state).length;
  if (count === 0) throw new FormProblem('Enter a quantity or serial numbers.');
  const body: MoveBody = { product_id: data.product.id, location_id: state.locationId, quantity: out ? -count : count, ...reasonOf(state), ...refs };
  return { path: 'move/', body, amount: count };
}

function transactionRequest(data: BookingData, state: FormState): Pick<BookingRequest, 'path' | 'body' | 'amount'> {
  const path = `${data.product.id}/transaction/`;
  const batch = data.product.profile === 'BATCH';
  if (state.op === 'set') {
    const quantity = quantityValue(state, true)!;
    if (batch && !state.batchId) throw new FormProblem('Choose the batch you counted.');
    // A compare-and-swap: if the stock moved since this screen showed it, the service answers 409 stock_changed.
    const expected = batch ? {} : { expected_quantity: stockAt(data, state.locationId) };
    const body: TransactionBody = {
      operation: 'set',
      location_id: state.locationId,
      quantity,
      ...expected,
      ...reasonOf(state),
      ...(batch ? { batch_id: state.batchId } : {}),
    };
    return { path, body, amount: quantity };
  }
  if (state.op === 'subtract') {
    const quantity = data.product.profile === 'SERIALIZED' ? state.itemIds.size : quantityValue(state, true)!;
    return {
      path,
      body: { operation: 'subtract', location_id: state.locationId, quantity, ...reasonOf(state), ...outgoingRefs(data, state) },
      amount: quantity,
    };
  }
  const quantity = quantityValue(state, data.product.profile !== 'SERIALIZED');
  const refs = incomingRefs(data, state);
  const serials = serialsOf(state).length;
  if (quantity === undefined && serials === 0) throw new FormProblem('Enter a quantity or serial numbers.');
  const body: TransactionBody = {
    operation: 'add',
    location_id: state.locationId,
    ...(quantity === undefined ? {} : { quantity }),
    ...reasonOf(state),
    ...refs,
  };
  return { path, body, amount: quantity ?? serials };
}

/** The request the form's state stands for; a FormProblem names what is missing. */
export function bookingRequest(data: BookingData, state: FormState): BookingRequest {
  const made = state.op === 'transfer' ? transferRequest(data, state) : state.op === 'move' ? moveRequest(data, state) : transactionRequest(data, state);
  return {
    ...made,
    op: state.op,
    itemCount: data.product.profile === 'SERIALIZED' && isOutgoing(state),
    from: state.locationId,
    to: state.toLocationId,
    direction: state.direction,
  };
}

/** "Subtracted 1 pcs at Main store.", and where the stock stands now. */
export function bookedText(data: BookingData, req: BookingRequest, answer: BookingAnswer): { done: string; where: string; extra: string } {
  const what = req.itemCount ? `${req.amount} item${req.amount === 1 ? '' : 's'}` : showQuantity(data, req.amount);
  const from = locationName(data, req.from);
  const to = locationName(data, req.to);
  const done = {
    add: `Added ${what} at ${from}.`,
    subtract: `Subtracted ${what} at ${from}.`,
    set: `Set the stock at ${from} to ${what}.`,
    move: `Moved ${what} ${req.direction === 'in' ? 'in at' : 'out of'} ${from}.`,
    transfer: `Transferred ${what} from ${from} to ${to}.`,
  }[req.op];
  const where =
    'from_stock_display' in answer ? `${from}: ${answer.from_stock_display}, ${to}: ${answer.to_stock_display}` : `${from}: ${answer.location_stock_display}`;
  const items = 'items' in answer && answer.items?.length ? ` Serial numbers: ${answer.items.map((i) => i.serial_number).join(', ')}.` : '';
  const batch = 'batch' in answer && answer.batch ? ` Batch ${answer.batch.code}.` : '';
  return { done, where, extra: items + batch };
}

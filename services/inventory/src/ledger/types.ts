/**
 * A booking as the ledger sees it, whichever endpoint received it (`BookingOrder`), and what it booked, as
 * data (`BookedStock`): the presenters shape the endpoints' answers from it, and an Idempotency-Key stores
 * it, so that a replay is presented exactly as the first answer was.
 */
import type { MovementKind } from '@pi/common';
import type { NewBatchRef } from './batches';
import type { MovementRow } from './movements';

export interface InRequest {
  quantity?: number;
  batch_id?: string;
  batch?: NewBatchRef;
  serial_numbers?: string[];
  reason: string;
}

export interface OutRequest {
  quantity?: number;
  batch_id?: string;
  item_ids?: string[];
  reason: string;
}

export interface CountRequest {
  quantity: number;
  expected_quantity?: number;
  batch_id?: string;
  reason: string;
}

export interface TransferRequest {
  quantity?: number;
  batch_id?: string;
  item_ids?: string[];
  reason: string;
}

/**
 * `in`, `out` and `count` name one location (the request field `location_id`); `transfer` and `core` two
 * (`from_location_id`, `to_location_id`). `core` is `POST /api/v1/movements/`: from the company's Inbound
 * it is an addition, to its Outbound a subtraction, otherwise a transfer.
 */
export type BookingOrder =
  | { op: 'in'; kind: Extract<MovementKind, 'ADD' | 'MOVE_IN'>; productId: string; locationId: string; details: InRequest }
  | { op: 'out'; kind: Extract<MovementKind, 'SUBTRACT' | 'MOVE_OUT'>; productId: string; locationId: string; details: OutRequest }
  | { op: 'count'; productId: string; locationId: string; details: CountRequest }
  | { op: 'transfer'; productId: string; fromId: string; toId: string; details: TransferRequest }
  | { op: 'core'; productId: string; fromId: string; toId: string; details: InRequest & OutRequest }
  /** `POST /api/v1/items/`: one unit of a SERIALIZED product, in at a location, with its serial number. */
  | { op: 'item'; productId: string; locationId: string; details: NewItemRequest };

export interface NewItemRequest {
  serial_number: string;
  reason: string;
}

/** The request field that names a booking's source (`from`) or destination (`to`) location. */
export function locationField(order: Pick<BookingOrder, 'op'>, side: 'from' | 'to'): string {
  return order.op === 'transfer' || order.op === 'core' ? `${side}_location_id` : 'location_id';
}

/** What a booking did, in the database's terms (quantities as NUMERIC strings). */
export interface BookedStock {
  /** What `core` turned out to be; the order's op otherwise. */
  op: 'in' | 'out' | 'count' | 'transfer';
  product_id: string;
  unit: string;
  decimals: number;
  movements: MovementRow[];
  /** The product's total stock over all physical locations, after the booking. */
  total: string;
  /** The stock at the booking's physical location(s) after it: one, or source then destination. */
  locations: Array<{ id: string; quantity: string }>;
  /** SERIALIZED additions: the items created. */
  items?: Array<{ id: string; serial_number: string }>;
  /** BATCH additions: the batch booked into. */
  batch?: { id: string; code: string; expiration_date: string | null };
  /** `item` orders: the item created, as its row was returned (timestamps as ISO text once read back). */
  item?: StoredItem;
}

export interface StoredItem {
  id: string;
  productId: string;
  serialNumber: string;
  locationId: string;
  isActive: boolean;
  retiredAt: Date | string | null;
  createdAt: Date | string;
}

/** An `Idempotency-Key` with the fingerprint of its request (method, path and body, canonicalised). */
export interface IdempotencyClaim {
  key: string;
  fingerprint: string;
}

/** A booking's outcome: booked now, or the first answer to its Idempotency-Key replayed. */
export type BookingOutcome =
  | { replayed: boolean; status: number; booked: BookedStock }
  /** A key claimed before bookings were stored as data: its stored HTTP body. */
  | { replayed: true; status: number; legacyBody: unknown };

import Joi from 'joi';
import { MOVEMENT_KINDS } from '@pi/common';
import { stockDisplay, toNumber } from '../engine/quantity';
import type { MovementRow } from '../ledger/movements';
import type { LedgerEntryRow } from '../commands/ledger-reads';
import type { BookedStock } from '../ledger/types';
import { calendarDay, displaySchema, quantitySchema, timestamp, uuid } from './schemas';

/** A ledger entry. `seq` is the server's order of the ledger. */
export function presentMovement(m: MovementRow) {
  return {
    id: m.id,
    seq: Number(m.seq),
    kind: m.kind,
    product_id: m.product_id,
    from_location_id: m.from_location_id,
    to_location_id: m.to_location_id,
    quantity: toNumber(m.quantity),
    batch_id: m.batch_id,
    item_ids: m.item_ids,
    reason: m.reason,
    actor: { kind: m.actor_kind, id: m.actor_id },
    request_id: m.request_id,
    // A Date from Sequelize, or the same instant already as ISO text (ledger_book, a stored booking).
    created_at: m.created_at,
  };
}

/**
 * An entry of the ledger list (`GET /api/v1/movements/`): the movement with the names of who booked it. A
 * key minted by a QR scan is named by its code and, when one signed in inside the widget, its user.
 */
export function presentLedgerEntry(m: LedgerEntryRow) {
  const user = (id: string | null, username: string | null, email: string | null) => (id && username ? { id, username, email } : null);
  const actor =
    m.actor_kind === 'user'
      ? {
          kind: m.actor_kind,
          id: m.actor_id,
          name: m.actor_username ?? 'unknown user',
          email: m.actor_email,
          qr_code: null,
          user: user(m.actor_id, m.actor_username, m.actor_email),
        }
      : {
          kind: m.actor_kind,
          id: m.actor_id,
          name: m.actor_qr_code ? `QR code ${m.actor_qr_code}` : m.actor_key_name ? `API key ${m.actor_key_name}` : 'unknown API key',
          email: null,
          qr_code: m.actor_qr_code,
          user: user(m.scan_user_id, m.scan_username, m.scan_user_email),
        };
  return { ...presentMovement(m), batch_code: m.batch_code, actor };
}

/** What a ledger entry books, as both `presentMovement` and the export's movement rows (routes/export/responses.ts) show it. */
export const ledgerEntryFields = {
  kind: Joi.string()
    .valid(...MOVEMENT_KINDS)
    .required(),
  product_id: uuid.required(),
  from_location_id: uuid.required(),
  to_location_id: uuid.required(),
  quantity: quantitySchema.required(),
  batch_id: uuid.allow(null).required(),
  item_ids: Joi.array().items(uuid).allow(null).required(),
  reason: Joi.string().allow('').required(),
};

/** The answer schema of `presentMovement` (OpenAPI). */
export const movementSchema = Joi.object({
  id: uuid.required(),
  seq: Joi.number().integer().required().description('The server-side order of the ledger.'),
  ...ledgerEntryFields,
  actor: Joi.object({ kind: Joi.string().valid('user', 'api_key').required(), id: uuid.required() }).required(),
  request_id: Joi.string().allow(null).required(),
  created_at: timestamp.required(),
}).id('Movement');

const ledgerUser = Joi.object({ id: uuid.required(), username: Joi.string().required(), email: Joi.string().allow(null).required() });

/** The answer schema of `presentLedgerEntry` (OpenAPI). */
export const ledgerEntrySchema = movementSchema
  .keys({
    batch_code: Joi.string().allow(null).required().description('The code of `batch_id` (null without a batch).'),
    actor: Joi.object({
      kind: Joi.string().valid('user', 'api_key').required(),
      id: uuid.required(),
      name: Joi.string().required().description("Who booked: the user's username, `API key <name>`, or `QR code <code>` for a scan."),
      email: Joi.string().allow(null).required().description("The user's email (users only)."),
      qr_code: Joi.string().allow(null).required().description('The code whose scan minted the key that booked.'),
      user: ledgerUser.allow(null).required().description('The user who booked: the user itself, or the one who signed in inside a scanned widget.'),
    }).required(),
  })
  .id('LedgerEntry');

/* The answers of the booking endpoints (commands/bookings.ts): the movements booked and the new stock. */

const shown = (booked: BookedStock, quantity: string) => stockDisplay(quantity, booked.decimals, booked.unit);

function bookedFields(booked: BookedStock) {
  return {
    movements: booked.movements.map(presentMovement),
    ...(booked.items ? { items: booked.items } : {}),
    ...(booked.batch ? { batch: booked.batch } : {}),
  };
}

/** `POST /api/v1/widget/{id}/transaction/`. */
export function presentTransactionResult(operation: 'add' | 'subtract' | 'set', booked: BookedStock) {
  const [at] = booked.locations;
  return {
    success: true,
    operation,
    product_id: booked.product_id,
    location_id: at.id,
    new_stock_display: shown(booked, booked.total),
    location_stock_display: shown(booked, at.quantity),
    ...bookedFields(booked),
  };
}

/** `POST /api/v1/widget/move/`. */
export function presentMoveResult(direction: 'in' | 'out', booked: BookedStock) {
  const [at] = booked.locations;
  return {
    success: true,
    direction,
    product_id: booked.product_id,
    location_id: at.id,
    new_stock_display: shown(booked, booked.total),
    location_stock_display: shown(booked, at.quantity),
    ...bookedFields(booked),
  };
}

/** `POST /api/v1/widget/transfer/`. */
export function presentTransferResult(booked: BookedStock) {
  const [from, to] = booked.locations;
  return {
    success: true,
    product_id: booked.product_id,
    from_location_id: from.id,
    to_location_id: to.id,
    new_stock_display: shown(booked, booked.total),
    from_stock_display: shown(booked, from.quantity),
    to_stock_display: shown(booked, to.quantity),
    ...bookedFields(booked),
  };
}

/** `POST /api/v1/movements/`: the total only. */
export function presentMovementResult(booked: BookedStock) {
  return { new_stock_display: shown(booked, booked.total), ...bookedFields(booked) };
}

const bookedMovements = Joi.array().items(movementSchema).required().description('The ledger entries booked (none when a count changed nothing).');
const bookedItems = Joi.array()
  .items(Joi.object({ id: uuid.required(), serial_number: Joi.string().required() }))
  .description('SERIALIZED additions: the items created.');
const bookedBatch = Joi.object({ id: uuid.required(), code: Joi.string().required(), expiration_date: calendarDay.allow(null).required() }).description(
  'BATCH additions: the batch booked into (found by code or created).',
);
const newStockDisplay = displaySchema.required().description("The product's new total stock, over all locations.");

/** What a booking at one location answers, whichever endpoint booked it. */
const bookedAtLocation = {
  success: Joi.boolean().valid(true).required(),
  product_id: uuid.required(),
  location_id: uuid.required(),
  new_stock_display: newStockDisplay,
  location_stock_display: displaySchema.required().description('The stock now at the location.'),
  movements: bookedMovements,
  items: bookedItems,
  batch: bookedBatch,
};

/** `POST /api/v1/widget/{id}/transaction/`. */
export const transactionResultSchema = Joi.object({
  operation: Joi.string().valid('add', 'subtract', 'set').required(),
  ...bookedAtLocation,
}).id('TransactionResult');

/** `POST /api/v1/widget/move/`. */
export const moveResultSchema = Joi.object({
  direction: Joi.string().valid('in', 'out').required().description('From the sign of `quantity`.'),
  ...bookedAtLocation,
}).id('MoveResult');

/** `POST /api/v1/widget/transfer/`. */
export const transferResultSchema = Joi.object({
  success: Joi.boolean().valid(true).required(),
  product_id: uuid.required(),
  from_location_id: uuid.required(),
  to_location_id: uuid.required(),
  new_stock_display: newStockDisplay,
  from_stock_display: displaySchema.required().description('The stock now at the source.'),
  to_stock_display: displaySchema.required().description('The stock now at the destination.'),
  movements: bookedMovements,
}).id('TransferResult');

/** `POST /api/v1/movements/`. */
export const movementResultSchema = Joi.object({
  new_stock_display: newStockDisplay,
  movements: bookedMovements,
  items: bookedItems,
  batch: bookedBatch,
}).id('MovementResult');

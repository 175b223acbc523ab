/** The OpenAPI operations of /api/v1/movements/ (router.ts). */
import { operations, pageSchema } from '@pi/common';
import { coreMovementBody } from '../../http/booking-schemas';
import { ledgerEntrySchema, movementResultSchema } from '../../presenters/movement';
import { listMovementsQuery } from './schema';

export const movementPageSchema = pageSchema(ledgerEntrySchema, 'MovementPage');

/** What every booking endpoint's description says about retries. */
export const IDEMPOTENCY =
  'Takes an optional `Idempotency-Key` header (1–255 visible ASCII characters, scoped to the company): a retry with the same key ' +
  'and the same request answers the first answer again, byte for byte, with `Idempotent-Replayed: true`, and books nothing; the same ' +
  'key with another request is 409 `idempotency_key_reused`. A refused booking is not remembered.';

/** The stock errors every booking can answer. */
export const BOOKING_ERRORS =
  'Not enough stock answers 409 `insufficient_stock` (`details {available, requested, location_id, batch_id?}`); a VIRTUAL or ' +
  'inactive location 400. `BATCH` products name a batch (`batch_id`, or `batch {code, expiration_date?}` on additions; subtractions ' +
  'and transfers without one take the earliest-expiring batches first); `SERIALIZED` products take `serial_numbers` on additions and ' +
  '`item_ids` on subtractions and transfers (409 `item_unavailable` when one is not there).';

export const REPLAYED_HEADER = { 'Idempotent-Replayed': '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`.' };

export const movementOperations = operations(
  {
    method: 'get',
    path: '/api/v1/movements/',
    operationId: 'listMovements',
    tag: 'movements',
    summary: 'List the stock ledger',
    description: 'Newest first. `location_id` matches either side of a movement. Filter ids of another company answer 403, unknown ones 404.',
    security: 'bearer',
    request: { query: listMovementsQuery },
    responses: { 200: { description: 'One page of the ledger.', schema: movementPageSchema } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/v1/movements/',
    operationId: 'createMovement',
    tag: 'movements',
    summary: 'Book a movement between two locations',
    description:
      "From the company's VIRTUAL `Inbound` it is an addition, to its `Outbound` a subtraction, between two distinct physical " +
      `locations a transfer; anything else is 400. ${BOOKING_ERRORS}\n\n${IDEMPOTENCY}`,
    security: 'bearer',
    request: { body: coreMovementBody },
    responses: { 201: { description: 'Booked: the movements and the new total stock.', schema: movementResultSchema, headers: REPLAYED_HEADER } },
    errors: [404, 409],
  },
);

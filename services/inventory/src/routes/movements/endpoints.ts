/** `/api/v1/movements/`: the company's ledger (list) and a movement between two locations (create). */
import { ID_OWNERS, buildPage, endpoints, pageSchema, type Call } from '@pi/common';
import { bookCoreMovement, type CoreMovementRequest } from '../../commands/bookings';
import { listMovements, type MovementFilters } from '../../commands/ledger-reads';
import type { InventoryContext } from '../../context';
import { coreMovementBody } from '../../http/booking-schemas';
import { requestOrigin, sendBooking } from '../../http/booking-request';
import { ledgerEntrySchema, movementResultSchema, presentLedgerEntry } from '../../presenters/movement';
import { BOOKING_ERRORS, REPLAYED_HEADER } from './descriptions';
import { listMovementsQuery } from './schema';

export const movementPageSchema = pageSchema(ledgerEntrySchema, 'MovementPage');

export const movementEndpoints = endpoints<InventoryContext>(
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
    ownedFilters: { product_id: ID_OWNERS.product, location_id: ID_OWNERS.location, batch_id: ID_OWNERS.batch },
    handle: async (ctx, { query, identity, req }: Call<MovementFilters>) => {
      const { rows, count } = await listMovements(ctx, identity, query);
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentLedgerEntry));
    },
  },
  {
    method: 'post',
    path: '/api/v1/movements/',
    operationId: 'createMovement',
    tag: 'movements',
    summary: 'Book a movement between two locations',
    description:
      "From the company's VIRTUAL `Inbound` it is an addition, to its `Outbound` a subtraction, between two distinct physical " +
      `locations a transfer; anything else is 400. ${BOOKING_ERRORS}`,
    security: 'bearer',
    idempotencyKey: true,
    request: { body: coreMovementBody },
    responses: { 201: { description: 'Booked: the movements and the new total stock.', schema: movementResultSchema, headers: REPLAYED_HEADER } },
    errors: [404, 409],
    // The status and the Idempotent-Replayed header come with the booking's answer (a replay repeats the first one).
    handle: async (ctx, { body, identity, req, res }: Call<unknown, CoreMovementRequest>) => {
      sendBooking(res, await bookCoreMovement(ctx, identity, body, requestOrigin(req)));
    },
  },
);

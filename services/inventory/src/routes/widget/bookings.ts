/** Widget bookings (API key): `{id}/transaction/`, `move/` (signed quantity) and `transfer/`. */
import { endpoints, schemas, type Call } from '@pi/common';
import {
  bookSignedMove,
  bookTransaction,
  bookTransfer,
  type SignedMoveRequest,
  type TransferStockRequest,
  type TransactionRequest,
} from '../../commands/bookings';
import type { InventoryContext } from '../../context';
import { signedMoveBody, transactionBody, transferBody } from '../../http/booking-schemas';
import { requestOrigin, sendBooking } from '../../http/booking-request';
import { moveResultSchema, transactionResultSchema, transferResultSchema } from '../../presenters/movement';
import { BOOKING_ERRORS, REPLAYED_HEADER } from '../movements/descriptions';
import { IDS, SCAN, WIDGET_BASE as base } from './schema';

const tag = 'widget';

/** Each answers what the booking answers (`sendBooking`: a replay's status and `Idempotent-Replayed`). */
export const widgetBookingEndpoints = endpoints<InventoryContext>(
  {
    method: 'post',
    path: `${base}/{id}/transaction/`,
    operationId: 'widgetBookTransaction',
    tag,
    summary: 'Add, subtract or count stock of a product',
    description:
      '`add` books in from the VIRTUAL `Inbound`, `subtract` out to `Outbound`; `set` is a physical count, booked as the difference ' +
      '(no movement when equal; not for `SERIALIZED` products). With `expected_quantity` a `set` is a compare-and-swap: if the stock ' +
      'at the location is no longer `expected_quantity`, nothing is booked and the answer is 409 `stock_changed` ' +
      `(\`details {expected_quantity, current_quantity}\`). ${BOOKING_ERRORS} \`new_stock_display\` is the product's total. ${IDS} ${SCAN} Under the \`read\` scan policy a scan books nothing; under \`staff\` it answers 403 \`sign_in_required\` until a user signed in.`,
    security: 'api_key',
    idempotencyKey: true,
    request: { params: schemas.idParams, body: transactionBody },
    responses: { 200: { description: 'Booked.', schema: transactionResultSchema, headers: REPLAYED_HEADER } },
    errors: [409],
    handle: async (ctx, { params, body, identity, req, res }: Call<unknown, TransactionRequest>) => {
      sendBooking(res, await bookTransaction(ctx, identity, params.id, body, requestOrigin(req)));
    },
  },
  {
    method: 'post',
    path: `${base}/move/`,
    operationId: 'widgetMoveStock',
    tag,
    summary: 'Book stock in or out by the sign of the quantity',
    description: `A positive \`quantity\` books in (\`MOVE_IN\`), a negative one out (\`MOVE_OUT\`); zero is refused. ${BOOKING_ERRORS} ${IDS} ${SCAN}`,
    security: 'api_key',
    idempotencyKey: true,
    request: { body: signedMoveBody },
    responses: { 200: { description: 'Booked.', schema: moveResultSchema, headers: REPLAYED_HEADER } },
    errors: [404, 409],
    handle: async (ctx, { body, identity, req, res }: Call<unknown, SignedMoveRequest>) => {
      sendBooking(res, await bookSignedMove(ctx, identity, body, requestOrigin(req)));
    },
  },
  {
    method: 'post',
    path: `${base}/transfer/`,
    operationId: 'widgetTransferStock',
    tag,
    summary: 'Transfer stock between two physical locations',
    description: `Between two distinct active physical locations, atomically. ${BOOKING_ERRORS} ${IDS} ${SCAN}`,
    security: 'api_key',
    idempotencyKey: true,
    request: { body: transferBody },
    responses: { 200: { description: 'Booked.', schema: transferResultSchema, headers: REPLAYED_HEADER } },
    errors: [404, 409],
    handle: async (ctx, { body, identity, req, res }: Call<unknown, TransferStockRequest>) => {
      sendBooking(res, await bookTransfer(ctx, identity, body, requestOrigin(req)));
    },
  },
);

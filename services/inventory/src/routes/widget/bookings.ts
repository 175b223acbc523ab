/** Widget bookings (API key): `{id}/transaction/`, `move/` (signed quantity) and `transfer/`. */
import { Router } from 'express';
import { idParam, schemas, validate } from '@pi/common';
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
import { bookingOrigin, sendBooking } from '../../http/booking-request';

export function widgetBookingsRouter(ctx: InventoryContext): Router {
  const router = Router();
  router.post('/api/v1/widget/move/', validate({ body: signedMoveBody }), async (req, res) => {
    const body = req.body as SignedMoveRequest;
    sendBooking(res, await bookSignedMove(ctx, req.identity!, body, bookingOrigin(req)));
  });
  router.post('/api/v1/widget/transfer/', validate({ body: transferBody }), async (req, res) => {
    const body = req.body as TransferStockRequest;
    sendBooking(res, await bookTransfer(ctx, req.identity!, body, bookingOrigin(req)));
  });
  router.post('/api/v1/widget/:id/transaction/', validate({ params: schemas.idParams, body: transactionBody }), async (req, res) => {
    const body = req.body as TransactionRequest;
    sendBooking(res, await bookTransaction(ctx, req.identity!, idParam(req), body, bookingOrigin(req)));
  });
  return router;
}

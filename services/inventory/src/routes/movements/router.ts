/** `/api/v1/movements/`: the company's ledger (list) and a movement between two locations (create). */
import { Router } from 'express';
import { ID_OWNERS, buildPage, ownedFilters, validate } from '@pi/common';
import { bookCoreMovement, type CoreMovementRequest } from '../../commands/bookings';
import { MovementFilters, listMovements } from '../../commands/ledger-reads';
import type { InventoryContext } from '../../context';
import { coreMovementBody } from '../../http/booking-schemas';
import { bookingOrigin, sendBooking } from '../../http/booking-request';
import { presentLedgerEntry } from '../../presenters/movement';
import { listMovementsQuery } from './schema';

export function movementsRouter(ctx: InventoryContext): Router {
  const { config } = ctx;
  const router = Router();
  router.get(
    '/api/v1/movements/',
    validate({ query: listMovementsQuery }),
    ownedFilters({ product_id: ID_OWNERS.product, location_id: ID_OWNERS.location, batch_id: ID_OWNERS.batch }),
    async (req, res) => {
      const filters = req.query as unknown as MovementFilters;
      const { rows, count } = await listMovements(ctx, req.identity!, filters);
      res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentLedgerEntry)));
    },
  );
  router.post('/api/v1/movements/', validate({ body: coreMovementBody }), async (req, res) => {
    const body = req.body as CoreMovementRequest;
    sendBooking(res, await bookCoreMovement(ctx, req.identity!, body, bookingOrigin(req)));
  });
  return router;
}

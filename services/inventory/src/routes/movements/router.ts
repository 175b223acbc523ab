/** `/api/v1/movements/`: the company's ledger (list) and a movement between two locations (create). */
import { Router } from 'express';
import Joi from 'joi';
import { MOVEMENT_KINDS, buildPage, schemas, validate } from '@pi/common';
import { bookCoreMovement } from '../../commands/bookings';
import { MovementFilters, listMovements } from '../../commands/ledger-reads';
import type { InventoryContext } from '../../context';
import { coreMovementBody } from '../../http/booking-schemas';
import { bookingContext, idempotencyClaim, sendBooking } from '../../http/booking-request';
import { presentMovement } from '../../presenters/movement';

const listQuery = Joi.object({
  ...schemas.pagination,
  product_id: schemas.uuid,
  location_id: schemas.uuid,
  batch_id: schemas.uuid,
  kind: Joi.string().valid(...MOVEMENT_KINDS),
  created_after: Joi.date().iso(),
  created_before: Joi.date().iso(),
});

export function movementsRouter({ sequelize, config }: InventoryContext): Router {
  const router = Router();
  router.get('/api/v1/movements/', validate({ query: listQuery }), async (req, res) => {
    const filters = req.query as unknown as MovementFilters;
    const { rows, count } = await listMovements(sequelize, req.identity!, filters);
    res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentMovement)));
  });
  router.post('/api/v1/movements/', validate({ body: coreMovementBody }), async (req, res) => {
    sendBooking(res, await bookCoreMovement(bookingContext(sequelize, req), req.body, idempotencyClaim(req)));
  });
  return router;
}

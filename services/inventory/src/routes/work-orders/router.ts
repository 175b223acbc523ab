/**
 * /api/v1/work-orders/: the company's work orders (dashboard, bearer token). Work orders are closed by moving
 * them to DONE or CANCELLED, never deleted (a QR code may point at one), so there is no DELETE.
 */
import { Router } from 'express';
import { ID_OWNERS, buildPage, idParam, ownedFilters, schemas, validate } from '@pi/common';
import type { InventoryContext } from '../../context';
import {
  WorkOrderFilters,
  createWorkOrder,
  getWorkOrder,
  listWorkOrders,
  updateWorkOrder,
  type NewWorkOrder,
  type WorkOrderChanges,
} from '../../commands/work-orders';
import { presentWorkOrder } from '../../presenters/work-order';
import { createWorkOrderBody, listWorkOrdersQuery, updateWorkOrderBody } from './schema';

export function workOrdersRouter(ctx: InventoryContext): Router {
  const { config } = ctx;
  const router = Router();
  const base = '/api/v1/work-orders';

  router.get(`${base}/`, validate({ query: listWorkOrdersQuery }), ownedFilters({ product_id: ID_OWNERS.product }), async (req, res) => {
    const filters = req.query as unknown as WorkOrderFilters;
    const { rows, count } = await listWorkOrders(ctx, req.identity!, filters);
    res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentWorkOrder)));
  });

  router.post(`${base}/`, validate({ body: createWorkOrderBody }), async (req, res) => {
    const body = req.body as NewWorkOrder;
    res.status(201).json(presentWorkOrder(await createWorkOrder(ctx, req.identity!, body)));
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentWorkOrder(await getWorkOrder(ctx, req.identity!, idParam(req))));
  });

  router.patch(`${base}/:id/`, validate({ params: schemas.idParams, body: updateWorkOrderBody }), async (req, res) => {
    const body = req.body as WorkOrderChanges;
    res.json(presentWorkOrder(await updateWorkOrder(ctx, req.identity!, idParam(req), body)));
  });
  return router;
}

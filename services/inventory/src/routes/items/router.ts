/**
 * /api/v1/items/: the company's serialized physical items (dashboard, bearer token). Creating an item books
 * one unit in through the ledger; moving and retiring items are bookings too (transfer/, subtract), so PATCH
 * only corrects a serial number and there is no DELETE.
 */
import { Router } from 'express';
import { ID_OWNERS, buildPage, idParam, ownedFilters, schemas, validate } from '@pi/common';
import type { InventoryContext } from '../../context';
import { ItemFilters, createItem, getItem, listItems, renameItem, type NewItem } from '../../commands/items';
import { bookingOrigin, sendBooking } from '../../http/booking-request';
import { presentItem } from '../../presenters/item';
import { createItemBody, listItemsQuery, updateItemBody } from './schema';

export function itemsRouter(ctx: InventoryContext): Router {
  const { config } = ctx;
  const router = Router();
  const base = '/api/v1/items';

  router.get(
    `${base}/`,
    validate({ query: listItemsQuery }),
    ownedFilters({ product_id: ID_OWNERS.product, location_id: ID_OWNERS.location }),
    async (req, res) => {
      const filters = req.query as unknown as ItemFilters;
      const { rows, count } = await listItems(ctx, req.identity!, filters);
      res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentItem)));
    },
  );

  router.post(`${base}/`, validate({ body: createItemBody }), async (req, res) => {
    const body = req.body as NewItem;
    sendBooking(res, await createItem(ctx, req.identity!, body, bookingOrigin(req)));
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentItem(await getItem(ctx, req.identity!, idParam(req))));
  });

  router.patch(`${base}/:id/`, validate({ params: schemas.idParams, body: updateItemBody }), async (req, res) => {
    const body = req.body as { serial_number: string };
    res.json(presentItem(await renameItem(ctx, req.identity!, idParam(req), body.serial_number)));
  });
  return router;
}

/**
 * /api/v1/items/: the company's serialized physical items (dashboard, bearer token), read only. Items are
 * created by additions of a SERIALIZED product and retired by its subtractions, both through the ledger
 * (`POST /api/v1/widget/{id}/transaction/`, `/api/v1/movements/`), so this resource has no POST, PATCH or
 * DELETE: those answer 404 in the error shape like any unknown route.
 */
import { Router } from 'express';
import { buildPage, idParam, schemas, validate } from '@pi/common';
import type { InventoryContext } from '../../context';
import { ItemFilters, getItem, listItems } from '../../commands/items';
import { presentItem } from '../../presenters/item';
import { listItemsQuery } from './schema';

export function itemsRouter({ config }: InventoryContext): Router {
  const router = Router();
  const base = '/api/v1/items';

  router.get(`${base}/`, validate({ query: listItemsQuery }), async (req, res) => {
    const filters = req.query as unknown as ItemFilters;
    const { rows, count } = await listItems(req.identity!, filters);
    res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentItem)));
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentItem(await getItem(req.identity!, idParam(req))));
  });
  return router;
}

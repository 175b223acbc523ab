/**
 * Widget catalog (API key): the product list with stock (docs/api/stock-and-ledger.md: `company`, `products`, `poly_products`)
 * and one product's detail with its per-location breakdown. Mounted last: `{id}/` would claim fixed names.
 */
import { Router } from 'express';
import { ID_OWNERS, idParam, ownedFilters, schemas, validate } from '@pi/common';
import { productDetail, widgetProductList } from '../../commands/stock-levels';
import type { InventoryContext } from '../../context';
import { presentProductDetail, presentWidgetProductList } from '../../presenters/stock';
import { noQuery, productListQuery } from './schema';

export function widgetCatalogRouter({ sequelize }: InventoryContext): Router {
  const router = Router();

  router.get('/api/v1/widget/', validate({ query: productListQuery }), ownedFilters({ location_id: ID_OWNERS.location }), async (req, res) => {
    const locationId = (req.query as { location_id?: string }).location_id;
    res.json(presentWidgetProductList(await widgetProductList(sequelize, req.identity!, locationId)));
  });

  router.get('/api/v1/widget/:id/', validate({ params: schemas.idParams, query: noQuery }), async (req, res) => {
    res.json(presentProductDetail(await productDetail(sequelize, req.identity!, idParam(req))));
  });
  return router;
}

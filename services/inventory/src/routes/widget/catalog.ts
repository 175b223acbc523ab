/**
 * Widget catalog (API key): the product list with stock (SPEC.md: `company`, `products`, `poly_products`)
 * and one product's detail with its per-location breakdown. Mounted last: `{id}/` would claim fixed names.
 */
import { Router } from 'express';
import { ID_OWNERS, idParam, ownedFilters, schemas, validate } from '@pi/common';
import { companyName, productDetail, productsWithStock, stockFilterLocation } from '../../commands/stock-levels';
import type { InventoryContext } from '../../context';
import { presentProductDetail, presentWidgetProduct } from '../../presenters/stock';
import { noQuery, productListQuery } from './schema';

export function widgetCatalogRouter({ sequelize }: InventoryContext): Router {
  const router = Router();

  router.get('/api/v1/widget/', validate({ query: productListQuery }), ownedFilters({ location_id: ID_OWNERS.location }), async (req, res) => {
    const identity = req.identity!;
    const locationId = (req.query as { location_id?: string }).location_id;
    if (locationId) await stockFilterLocation(identity, locationId);
    const [company, rows] = await Promise.all([companyName(identity.companyId), productsWithStock(sequelize, identity.companyId, locationId)]);
    res.json({
      company,
      products: rows.filter((p) => p.profile !== 'DIMENSIONAL').map(presentWidgetProduct),
      poly_products: rows.filter((p) => p.profile === 'DIMENSIONAL').map(presentWidgetProduct),
    });
  });

  router.get('/api/v1/widget/:id/', validate({ params: schemas.idParams, query: noQuery }), async (req, res) => {
    res.json(presentProductDetail(await productDetail(sequelize, req.identity!, idParam(req))));
  });
  return router;
}

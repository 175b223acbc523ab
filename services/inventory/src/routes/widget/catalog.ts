/**
 * Widget catalog (API key): the product list with stock (docs/api/stock-and-ledger.md: `company`, `products`, `poly_products`)
 * one product's detail with its per-location breakdown, and its stock over time. Mounted last: `{id}/` would claim fixed names.
 */
import { Router } from 'express';
import { ID_OWNERS, idParam, ownedFilters, schemas, validate } from '@pi/common';
import { HistoryQuery, stockHistory } from '../../commands/stock-history';
import { productDetail, widgetProductList } from '../../commands/stock-levels';
import type { InventoryContext } from '../../context';
import { presentProductDetail, presentWidgetProductList } from '../../presenters/stock';
import { presentStockHistory } from '../../presenters/stock-history';
import { noQuery, productListQuery, widgetHistoryQuery } from './schema';

export function widgetCatalogRouter(ctx: InventoryContext): Router {
  const router = Router();

  router.get('/api/v1/widget/', validate({ query: productListQuery }), ownedFilters({ location_id: ID_OWNERS.location }), async (req, res) => {
    const { location_id: locationId, barcode } = req.query as { location_id?: string; barcode?: string };
    res.json(presentWidgetProductList(await widgetProductList(ctx, req.identity!, locationId, barcode)));
  });

  router.get('/api/v1/widget/:id/', validate({ params: schemas.idParams, query: noQuery }), async (req, res) => {
    res.json(presentProductDetail(await productDetail(ctx, req.identity!, idParam(req))));
  });

  // The sparkline of the widget's product view: the product's total over time (docs/api/stock-history.md).
  router.get('/api/v1/widget/:id/history/', validate({ params: schemas.idParams, query: widgetHistoryQuery }), async (req, res) => {
    const query = { ...(req.query as unknown as Omit<HistoryQuery, 'product_id'>), product_id: idParam(req) };
    res.json(presentStockHistory(await stockHistory(ctx, req.identity!, query)));
  });
  return router;
}

/**
 * Widget catalog (API key): the product list with stock (docs/api/stock-and-ledger.md: `company`, `products`, `poly_products`)
 * one product's detail with its per-location breakdown, and its stock over time. Routed last: `{id}/` would claim fixed names.
 */
import { ID_OWNERS, endpoints, schemas, type Call } from '@pi/common';
import { HistoryQuery, stockHistory } from '../../commands/stock-history';
import { productDetail, widgetProductList } from '../../commands/stock-levels';
import type { InventoryContext } from '../../context';
import { presentProductDetail, presentWidgetProductList, productDetailSchema } from '../../presenters/stock';
import { presentStockHistory, stockHistorySchema } from '../../presenters/stock-history';
import { HISTORY_DESCRIPTION } from '../stock/descriptions';
import { widgetProductListSchema } from './responses';
import { SCAN, WIDGET_BASE as base, noQuery, productListQuery, widgetHistoryQuery } from './schema';

const tag = 'widget';

export const widgetCatalogEndpoints = endpoints<InventoryContext>(
  {
    method: 'get',
    path: `${base}/`,
    operationId: 'widgetListProducts',
    tag,
    summary: 'Products with their stock',
    description:
      'Active products by name; `poly_products` are the `DIMENSIONAL` ones (with `unit` and `decimals`). With `location_id` the stock ' +
      'shown is the stock at that location. With `barcode` only the product with that GTIN is listed (none when no product has it); ' +
      "a malformed barcode answers 400 naming `barcode`. A QR scan's key gets only its code's target product, in the same shape.",
    security: 'api_key',
    request: { query: productListQuery },
    responses: { 200: { description: 'The company name and its products.', schema: widgetProductListSchema } },
    errors: [404],
    ownedFilters: { location_id: ID_OWNERS.location },
    handle: async (ctx, { query, identity }: Call<{ location_id?: string; barcode?: string }>) =>
      presentWidgetProductList(await widgetProductList(ctx, identity, query.location_id, query.barcode)),
  },
  {
    method: 'get',
    path: `${base}/{id}/`,
    operationId: 'widgetGetProduct',
    tag,
    summary: 'A product with its stock by location',
    description: `\`batches\` come with \`BATCH\` products, \`items_count\` with \`SERIALIZED\` ones. ${SCAN}`,
    security: 'api_key',
    request: { params: schemas.idParams, query: noQuery },
    responses: { 200: { description: 'The product, its total stock and its stock per location.', schema: productDetailSchema } },
    handle: async (ctx, { params, identity }: Call) => presentProductDetail(await productDetail(ctx, identity, params.id)),
  },
  // The sparkline of the widget's product view: the product's total over time (docs/api/stock-history.md).
  {
    method: 'get',
    path: `${base}/{id}/history/`,
    operationId: 'widgetGetStockHistory',
    tag,
    summary: "A product's total stock over time",
    description: `All physical locations together (the widget's sparkline). ${HISTORY_DESCRIPTION} ${SCAN}`,
    security: 'api_key',
    request: { params: schemas.idParams, query: widgetHistoryQuery },
    responses: { 200: { description: 'The balance at the end of each period.', schema: stockHistorySchema } },
    errors: [404],
    handle: async (ctx, { query, params, identity }: Call<Omit<HistoryQuery, 'product_id'>>) =>
      presentStockHistory(await stockHistory(ctx, identity, { ...query, product_id: params.id })),
  },
);

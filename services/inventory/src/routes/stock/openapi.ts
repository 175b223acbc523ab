/** The OpenAPI operation of /api/v1/stock/ (router.ts). */
import { operations, pageSchema } from '@pi/common';
import { stockLevelSchema } from '../../presenters/stock';
import { stockQuery } from './schema';

export const stockLevelPageSchema = pageSchema(stockLevelSchema, 'StockLevelPage');

export const stockOperations = operations({
  method: 'get',
  path: '/api/v1/stock/',
  operationId: 'listStockLevels',
  tag: 'stock',
  summary: 'Stock levels per product',
  description:
    'Calculated from the ledger, per product (by name) with its total and the stock at each physical location. With `location_id` ' +
    'the totals count that location only. `below_min=true` keeps the products whose total is below their `engine_config.min_stock` ' +
    '(the overview of docs/api/overview-and-appearance.md counts them). Filter ids of another company answer 403, unknown ones 404.',
  security: 'bearer',
  request: { query: stockQuery },
  responses: { 200: { description: 'One page of stock levels.', schema: stockLevelPageSchema } },
  errors: [404],
});

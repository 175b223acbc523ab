/** The OpenAPI operations of /api/v1/stock/ and /api/v1/stock/history/ (router.ts). */
import { operations, pageSchema } from '@pi/common';
import { MAX_HISTORY_POINTS } from '../../commands/stock-history';
import { stockLevelSchema } from '../../presenters/stock';
import { stockHistorySchema } from '../../presenters/stock-history';
import { stockHistoryQuery, stockQuery } from './schema';

export const stockLevelPageSchema = pageSchema(stockLevelSchema, 'StockLevelPage');

/** What both history operations (core and widget) say of their periods. */
export const HISTORY_DESCRIPTION =
  'Computed from the ledger: each point is the balance at the end of a period (`at`, 00:00 UTC of the next period), ' +
  'every movement booked before that instant counted. Periods are UTC days, ISO weeks (Monday to Sunday) or calendar months, ' +
  `from the one holding \`from\` to the one holding \`to\`, at most ${MAX_HISTORY_POINTS}; more, \`from\` after \`to\`, or a malformed ` +
  'date or interval answer 400 naming the field. Periods after today repeat the current balance.';

export const stockOperations = operations(
  {
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
  },
  {
    method: 'get',
    path: '/api/v1/stock/history/',
    operationId: 'getStockHistory',
    tag: 'stock',
    summary: "A product's stock over time",
    description:
      `${HISTORY_DESCRIPTION} With \`location_id\` the balances at that physical location, without it all physical locations together ` +
      '(a VIRTUAL location answers 400). Ids of another company answer 403, unknown ones 404.',
    security: 'bearer',
    request: { query: stockHistoryQuery },
    responses: { 200: { description: 'The balance at the end of each period.', schema: stockHistorySchema } },
    errors: [404],
  },
);

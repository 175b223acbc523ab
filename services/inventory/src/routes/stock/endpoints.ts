/**
 * `GET /api/v1/stock/`: calculated stock per product (total and per location), filters product and location.
 * `GET /api/v1/stock/history/`: one product's balance at the end of each day, week or month (docs/api/stock-history.md).
 * `POST /api/v1/stock/import/`: opening stock from CSV (docs/api/spreadsheets.md).
 */
import Joi from 'joi';
import { ID_OWNERS, buildPage, endpoints, pageSchema, reply, type Call } from '@pi/common';
import { stockHistory, type HistoryQuery } from '../../commands/stock-history';
import { stockLevelsPage, type StockFilters } from '../../commands/stock-levels';
import { OPENING_STOCK_REASON, importOpeningStock } from '../../commands/spreadsheet-import';
import type { InventoryContext } from '../../context';
import { keyedBody, requestOrigin } from '../../http/booking-request';
import { csvBody, csvText } from '../../http/csv-body';
import { presentStockLevel, stockLevelSchema } from '../../presenters/stock';
import { presentStockHistory, stockHistorySchema } from '../../presenters/stock-history';
import { quantitySchema, uuid } from '../../presenters/schemas';
import { MAX_IMPORT_ROWS, IMPORT_RATE_LIMITS } from '../product-models/schema';
import { REPLAYED_HEADER } from '../movements/descriptions';
import { HISTORY_DESCRIPTION } from './descriptions';
import { importStockQuery, stockHistoryQuery, stockQuery } from './schema';

export const openingStockImportSchema = Joi.object({
  imported: Joi.number().integer().min(1).required(),
  dry_run: Joi.boolean().valid(false).required(),
  bookings: Joi.array()
    .items(
      Joi.object({
        row: Joi.number().integer().min(1).required(),
        movement_id: uuid.required(),
        sku: Joi.string().required(),
        location: Joi.string().required(),
        batch_code: Joi.string().allow(null).required(),
        quantity: quantitySchema.required(),
        quantity_at_location: quantitySchema.required().description("The product's stock at the location after the import (all batches)."),
      }),
    )
    .required()
    .description('One booking per row, in the order of the file.'),
}).id('OpeningStockImport');

export const openingStockDryRunSchema = Joi.object({
  imported: Joi.number().valid(0).required(),
  would_import: Joi.number().integer().min(1).required(),
  dry_run: Joi.boolean().valid(true).required(),
}).id('OpeningStockImportDryRun');

export const stockLevelPageSchema = pageSchema(stockLevelSchema, 'StockLevelPage');

export const stockEndpoints = endpoints<InventoryContext>(
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
    ownedFilters: { product_id: ID_OWNERS.product, location_id: ID_OWNERS.location },
    handle: async (ctx, { query, identity, req }: Call<StockFilters>) => {
      const { rows, count, breakdown } = await stockLevelsPage(ctx, identity, query);
      const results = rows.map((p) =>
        presentStockLevel(
          p,
          breakdown.filter((b) => b.product_id === p.id),
        ),
      );
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, results);
    },
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
    ownedFilters: { product_id: ID_OWNERS.product, location_id: ID_OWNERS.location },
    handle: async (ctx, { query, identity }: Call<HistoryQuery>) => presentStockHistory(await stockHistory(ctx, identity, query)),
  },
  {
    method: 'post',
    path: '/api/v1/stock/import/',
    operationId: 'importOpeningStock',
    rateLimits: IMPORT_RATE_LIMITS,
    tag: 'stock',
    summary: 'Import opening stock from CSV',
    description:
      `One ledger addition per row (from the company's Inbound to the location, as \`POST /api/v1/movements/\` books it), all in one ` +
      `transaction: every row or none, at most ${MAX_IMPORT_ROWS} rows. If any row fails the answer is 400 \`import_failed\` with ` +
      '`details.rows: [{row, field, message}]` naming every problem by row (from 1) and column, and nothing is booked. With `dry_run=true` ' +
      'the rows are checked and nothing is booked. Products by SKU, locations by name (ignoring case; a name must mean one active ' +
      'physical location). SERIALIZED products are refused (their items need serial numbers). Members and admins only.',
    security: 'bearer',
    idempotencyKey: true,
    request: {
      query: importStockQuery,
      otherBodyTypes: {
        'text/csv':
          'A CSV file (up to 5 MB) with a header row of `sku, location, quantity, batch_code, expiration_date, reason` (any order and case; ' +
          `the first three required; \`batch_code\` required for BATCH products; \`reason\` defaults to "${OPENING_STOCK_REASON}"). The other ` +
          'columns of the stock export are accepted and ignored, so an exported file imports as it is.',
      },
    },
    responses: {
      200: { description: '`dry_run=true`: every row is valid; nothing was booked.', schema: openingStockDryRunSchema },
      201: { description: 'Every row was booked.', schema: openingStockImportSchema, headers: REPLAYED_HEADER },
    },
    errors: [415],
    before: [csvBody()],
    handle: async (ctx, { query, identity, req, res }: Call<{ dry_run: boolean }>) => {
      const text = csvText(req);
      const answer = await importOpeningStock(ctx, identity, text, query.dry_run, requestOrigin(req));
      return answer.body.dry_run ? answer.body : reply(201, keyedBody(res, answer));
    },
  },
);

/** The OpenAPI operations of /api/v1/export/ (router.ts). */
import { operations } from '@pi/common';
import { MOVEMENT_COLUMNS, PRODUCT_COLUMNS, STOCK_COLUMNS } from '../../commands/spreadsheet-export';
import { companyExportSchema } from './responses';
import { exportQuery, movementExportQuery, productExportQuery, stockExportQuery } from './schema';

const CSV =
  'CSV (RFC 4180, UTF-8 with a byte order mark, CRLF line ends), streamed from one read-only snapshot as it is read; a failure midway cuts ' +
  'the connection. A text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a leading apostrophe so that ' +
  'spreadsheet programs show it as text (docs/api/spreadsheets.md). Viewers may export. Columns: ';

const csvHeaders = (name: string) => ({
  'Content-Disposition': `\`attachment; filename="${name}-<company>-<YYYY-MM-DD>.csv"\`.`,
  'Cache-Control': '`no-store`.',
});

const columns = (list: readonly string[]) => list.map((c) => `\`${c}\``).join(', ');

export const exportOperations = operations(
  {
    method: 'get',
    path: '/api/v1/export/',
    operationId: 'exportCompany',
    tag: 'export',
    summary: "Download all of the company's records",
    description:
      "Every record of the caller's company as one JSON document, streamed from one read-only snapshot (a booking made meanwhile is " +
      'either wholly in it or not at all). If the export fails midway the connection is cut, so a partial file never looks complete.',
    security: 'bearer',
    request: { query: exportQuery },
    responses: {
      200: {
        description: 'The export document, as a download.',
        schema: companyExportSchema,
        headers: {
          'Content-Disposition': '`attachment; filename="export-<company>-<YYYY-MM-DD>.json"`.',
          'Cache-Control': '`no-store`.',
        },
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/export/products/',
    operationId: 'exportProductsCsv',
    tag: 'export',
    summary: 'Download the catalog as CSV',
    description: `${CSV}${columns(PRODUCT_COLUMNS)}. Filters and \`ordering\` as \`GET /api/v1/product-models/\`, without paging.`,
    security: 'bearer',
    request: { query: productExportQuery },
    responses: { 200: { description: 'The products, one per row.', contentType: 'text/csv', headers: csvHeaders('products') } },
  },
  {
    method: 'get',
    path: '/api/v1/export/stock/',
    operationId: 'exportStockCsv',
    tag: 'export',
    summary: 'Download the stock levels as CSV',
    description:
      `${CSV}${columns(STOCK_COLUMNS)}. One row per product, physical location and batch holding stock, by product name, location name ` +
      'and batch code. Filters as `GET /api/v1/stock/`, without paging; a VIRTUAL `location_id` answers 400 naming it.',
    security: 'bearer',
    request: { query: stockExportQuery },
    responses: { 200: { description: 'The balances, one per row.', contentType: 'text/csv', headers: csvHeaders('stock') } },
  },
  {
    method: 'get',
    path: '/api/v1/export/movements/',
    operationId: 'exportMovementsCsv',
    tag: 'export',
    summary: 'Download the ledger as CSV',
    description:
      `${CSV}${columns(MOVEMENT_COLUMNS)}. Filters and \`ordering\` as \`GET /api/v1/movements/\`, without paging; oldest first unless ` +
      '`ordering` says otherwise. `created_before` not later than `created_after` answers 400 naming `created_before`.',
    security: 'bearer',
    request: { query: movementExportQuery },
    responses: { 200: { description: 'The movements, one per row.', contentType: 'text/csv', headers: csvHeaders('movements') } },
  },
);

/**
 * GET /api/v1/export/: every record of the caller's company as one JSON document, streamed as a download
 * (dashboard, bearer token). GET /api/v1/export/{products,stock,movements}/: the spreadsheet exports, CSV
 * streamed the same way, filtered like their lists (docs/api/spreadsheets.md). Read-only, so viewers may.
 * Each handler writes its download itself, so returns nothing.
 */
import type { Request, Response } from 'express';
import type { Writable } from 'node:stream';
import { ID_OWNERS, endpoints, type Call, type Identity } from '@pi/common';
import type { InventoryContext } from '../../context';
import { ExportAbortedError, exportCompanyOf, exportFileName, writeCompanyExport } from '../../commands/export';
import {
  MOVEMENT_COLUMNS,
  PRODUCT_COLUMNS,
  STOCK_COLUMNS,
  movementSheet,
  productSheet,
  stockSheet,
  writeSheet,
  type MovementExportFilters,
  type ProductExportFilters,
  type Sheet,
  type StockExportFilters,
} from '../../commands/spreadsheet-export';
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

export const exportEndpoints = endpoints<InventoryContext>(
  {
    method: 'get',
    path: '/api/v1/export/',
    operationId: 'exportCompany',
    rateLimits: ['company_export'],
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
    handle: async (ctx, { identity, req, res }: Call) => {
      const company = await exportCompanyOf(ctx, identity);
      const now = new Date();
      await stream(req, res, 'application/json; charset=utf-8', exportFileName(company, now), (out) => writeCompanyExport(ctx, company, out, now));
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
    handle: async (ctx, { query, identity, req, res }: Call<ProductExportFilters>) => {
      await sendSheet(ctx, identity, req, res, productSheet(identity, query));
    },
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
    ownedFilters: { product_id: ID_OWNERS.product, location_id: ID_OWNERS.location },
    handle: async (ctx, { query, identity, req, res }: Call<StockExportFilters>) => {
      await sendSheet(ctx, identity, req, res, await stockSheet(ctx, identity, query));
    },
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
    ownedFilters: { product_id: ID_OWNERS.product, location_id: ID_OWNERS.location, batch_id: ID_OWNERS.batch },
    handle: async (ctx, { query, identity, req, res }: Call<MovementExportFilters>) => {
      await sendSheet(ctx, identity, req, res, movementSheet(identity, query));
    },
  },
);

interface RequestLogger {
  log?: { error(obj: object, msg: string): void };
}

async function sendSheet(ctx: InventoryContext, identity: Identity, req: Request, res: Response, sheet: Sheet): Promise<void> {
  const company = await exportCompanyOf(ctx, identity);
  const filename = exportFileName(company, new Date(), sheet.name, 'csv');
  await stream(req, res, 'text/csv; charset=utf-8', filename, (out) => writeSheet(ctx, sheet, out));
}

/** Streams a download written by `write`. Every check (and so every error answer) comes before this. */
async function stream(req: Request, res: Response, contentType: string, filename: string, write: (out: Writable) => Promise<void>): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  res.setHeader('Cache-Control', 'no-store');
  try {
    await write(res);
  } catch (err) {
    // Once the file has started, an error can no longer become an error answer: cut the connection so that
    // the client sees an incomplete download, never a file that looks whole.
    if (!res.headersSent) {
      res.removeHeader('Content-Type');
      res.removeHeader('Content-Disposition');
      res.removeHeader('Cache-Control');
      throw err;
    }
    if (!(err instanceof ExportAbortedError)) (req as unknown as RequestLogger).log?.error({ err }, 'export failed midway');
    res.destroy();
  }
}

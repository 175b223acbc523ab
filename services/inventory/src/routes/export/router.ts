/**
 * GET /api/v1/export/: every record of the caller's company as one JSON document, streamed as a download
 * (dashboard, bearer token). GET /api/v1/export/{products,stock,movements}/: the spreadsheet exports, CSV
 * streamed the same way, filtered like their lists (docs/api/spreadsheets.md). Read-only, so viewers may.
 */
import { Router } from 'express';
import type { Request, Response } from 'express';
import { ID_OWNERS, ownedFilters, validate } from '@pi/common';
import type { InventoryContext } from '../../context';
import { ExportAbortedError, exportCompanyOf, exportFileName, writeCompanyExport } from '../../commands/export';
import type { Writable } from 'node:stream';
import { Sheet, movementSheet, productSheet, stockSheet, writeSheet } from '../../commands/spreadsheet-export';
import { exportQuery, movementExportQuery, productExportQuery, stockExportQuery } from './schema';

interface RequestLogger {
  log?: { error(obj: object, msg: string): void };
}

export function exportRouter(ctx: InventoryContext): Router {
  const router = Router();

  router.get('/api/v1/export/', validate({ query: exportQuery }), async (req, res) => {
    const company = await exportCompanyOf(ctx, req.identity!);
    const now = new Date();
    await stream(req, res, 'application/json; charset=utf-8', exportFileName(company, now), (out) => writeCompanyExport(ctx, company, out, now));
  });

  const sendSheet = async (req: Request, res: Response, sheet: Sheet) => {
    const company = await exportCompanyOf(ctx, req.identity!);
    const filename = exportFileName(company, new Date(), sheet.name, 'csv');
    await stream(req, res, 'text/csv; charset=utf-8', filename, (out) => writeSheet(ctx, sheet, out));
  };

  router.get('/api/v1/export/products/', validate({ query: productExportQuery }), async (req, res) => {
    await sendSheet(req, res, productSheet(req.identity!, req.query));
  });

  router.get(
    '/api/v1/export/stock/',
    validate({ query: stockExportQuery }),
    ownedFilters({ product_id: ID_OWNERS.product, location_id: ID_OWNERS.location }),
    async (req, res) => {
      await sendSheet(req, res, await stockSheet(ctx, req.identity!, req.query));
    },
  );

  router.get(
    '/api/v1/export/movements/',
    validate({ query: movementExportQuery }),
    ownedFilters({ product_id: ID_OWNERS.product, location_id: ID_OWNERS.location, batch_id: ID_OWNERS.batch }),
    async (req, res) => {
      await sendSheet(req, res, movementSheet(req.identity!, req.query));
    },
  );
  return router;
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

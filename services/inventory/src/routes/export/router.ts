/**
 * GET /api/v1/export/: every record of the caller's company as one JSON document, streamed as a download
 * (dashboard, bearer token). Read-only.
 */
import { Router } from 'express';
import { validate } from '@pi/common';
import type { InventoryContext } from '../../context';
import { ExportAbortedError, exportCompanyOf, exportFileName, writeCompanyExport } from '../../commands/export';
import { exportQuery } from './schema';

interface RequestLogger {
  log?: { error(obj: object, msg: string): void };
}

export function exportRouter({ sequelize }: InventoryContext): Router {
  const router = Router();

  router.get('/api/v1/export/', validate({ query: exportQuery }), async (req, res) => {
    const company = await exportCompanyOf(req.identity!);
    const now = new Date();
    res.status(200);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(company, now)}"`);
    res.setHeader('Cache-Control', 'no-store');
    try {
      await writeCompanyExport(sequelize, company, res, now);
    } catch (err) {
      // Once the document has started, an error can no longer become an error answer: cut the connection so
      // that the client sees an incomplete download, never a document that looks whole.
      if (!res.headersSent) {
        res.removeHeader('Content-Disposition');
        res.removeHeader('Cache-Control');
        throw err;
      }
      if (!(err instanceof ExportAbortedError)) (req as unknown as RequestLogger).log?.error({ err }, 'export failed midway');
      res.destroy();
    }
  });
  return router;
}

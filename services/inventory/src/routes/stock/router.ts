/**
 * `GET /api/v1/stock/`: calculated stock per product (total and per location), filters product and location.
 * `GET /api/v1/stock/history/`: one product's balance at the end of each day, week or month (docs/api/stock-history.md).
 * `POST /api/v1/stock/import/`: opening stock from CSV (docs/api/spreadsheets.md).
 */
import { Router } from 'express';
import { ID_OWNERS, buildPage, ownedFilters, requestIdOf, validate } from '@pi/common';
import { HistoryQuery, stockHistory } from '../../commands/stock-history';
import { StockFilters, stockLevelsPage } from '../../commands/stock-levels';
import type { InventoryContext } from '../../context';
import { presentStockLevel } from '../../presenters/stock';
import { presentStockHistory } from '../../presenters/stock-history';
import { importOpeningStock } from '../../commands/spreadsheet-import';
import { csvBody, csvText } from '../../http/csv-body';
import { importStockQuery, stockHistoryQuery, stockQuery } from './schema';

export function stockRouter(ctx: InventoryContext): Router {
  const { config } = ctx;
  const router = Router();
  router.get(
    '/api/v1/stock/',
    validate({ query: stockQuery }),
    ownedFilters({ product_id: ID_OWNERS.product, location_id: ID_OWNERS.location }),
    async (req, res) => {
      const filters = req.query as unknown as StockFilters;
      const { rows, count, breakdown } = await stockLevelsPage(ctx, req.identity!, filters);
      const results = rows.map((p) =>
        presentStockLevel(
          p,
          breakdown.filter((b) => b.product_id === p.id),
        ),
      );
      res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, results));
    },
  );
  router.get(
    '/api/v1/stock/history/',
    validate({ query: stockHistoryQuery }),
    ownedFilters({ product_id: ID_OWNERS.product, location_id: ID_OWNERS.location }),
    async (req, res) => {
      res.json(presentStockHistory(await stockHistory(ctx, req.identity!, req.query as unknown as HistoryQuery)));
    },
  );
  /** Opening stock from CSV: one ledger addition per row, all or nothing, with a dry run. */
  router.post('/api/v1/stock/import/', csvBody(), validate({ query: importStockQuery }), async (req, res) => {
    const { dry_run: dryRun } = req.query as unknown as { dry_run: boolean };
    const result = await importOpeningStock(ctx, req.identity!, csvText(req), dryRun, requestIdOf(req));
    res.status(result.dry_run ? 200 : 201).json(result);
  });
  return router;
}

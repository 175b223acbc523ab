/**
 * `GET /api/v1/stock/`: calculated stock per product (total and per location), filters product and location.
 * `GET /api/v1/stock/history/`: one product's balance at the end of each day, week or month (docs/api/stock-history.md).
 */
import { Router } from 'express';
import { ID_OWNERS, buildPage, ownedFilters, validate } from '@pi/common';
import { HistoryQuery, stockHistory } from '../../commands/stock-history';
import { StockFilters, stockLevelsPage } from '../../commands/stock-levels';
import type { InventoryContext } from '../../context';
import { presentStockLevel } from '../../presenters/stock';
import { presentStockHistory } from '../../presenters/stock-history';
import { stockHistoryQuery, stockQuery } from './schema';

export function stockRouter({ sequelize, config }: InventoryContext): Router {
  const router = Router();
  router.get('/api/v1/stock/', validate({ query: stockQuery }), ownedFilters({ product_id: ID_OWNERS.product, location_id: ID_OWNERS.location }), async (req, res) => {
    const filters = req.query as unknown as StockFilters;
    const { rows, count, breakdown } = await stockLevelsPage(sequelize, req.identity!, filters);
    const results = rows.map((p) => presentStockLevel(p, breakdown.filter((b) => b.product_id === p.id)));
    res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, results));
  });
  router.get(
    '/api/v1/stock/history/',
    validate({ query: stockHistoryQuery }),
    ownedFilters({ product_id: ID_OWNERS.product, location_id: ID_OWNERS.location }),
    async (req, res) => {
      res.json(presentStockHistory(await stockHistory(sequelize, req.identity!, req.query as unknown as HistoryQuery)));
    },
  );
  return router;
}

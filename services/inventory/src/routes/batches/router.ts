/**
 * /api/v1/batches/: batches (lots) of the company's BATCH products with their remaining stock (dashboard,
 * bearer token). Stock is booked through the ledger only; a batch is never deleted (movements name it).
 */
import { Router } from 'express';
import { ID_OWNERS, buildPage, idParam, ownedFilters, schemas, validate } from '@pi/common';
import type { InventoryContext } from '../../context';
import { BatchFilters, createBatch, getBatch, listBatches, updateBatch, type NewBatch, type BatchChanges } from '../../commands/batches';
import { presentBatch } from '../../presenters/batch';
import { createBatchBody, listBatchesQuery, updateBatchBody } from './schema';

export function batchesRouter(ctx: InventoryContext): Router {
  const { config } = ctx;
  const router = Router();
  const base = '/api/v1/batches';

  router.get(`${base}/`, validate({ query: listBatchesQuery }), ownedFilters({ product_id: ID_OWNERS.product }), async (req, res) => {
    const filters = req.query as unknown as BatchFilters;
    const { rows, count } = await listBatches(ctx, req.identity!, filters);
    res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentBatch)));
  });

  router.post(`${base}/`, validate({ body: createBatchBody }), async (req, res) => {
    const body = req.body as NewBatch;
    res.status(201).json(presentBatch(await createBatch(ctx, req.identity!, body)));
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentBatch(await getBatch(ctx, req.identity!, idParam(req))));
  });

  router.patch(`${base}/:id/`, validate({ params: schemas.idParams, body: updateBatchBody }), async (req, res) => {
    const body = req.body as BatchChanges;
    res.json(presentBatch(await updateBatch(ctx, req.identity!, idParam(req), body)));
  });
  return router;
}

/**
 * /api/v1/product-models/: the company's catalog (dashboard, bearer token), and its bulk import from JSON or
 * CSV. `import/` is routed before `{id}/`, which would otherwise claim it.
 */
import express, { Router } from 'express';
import { AppError, buildPage, idParam, schemas, validate } from '@pi/common';
import type { InventoryContext } from '../../context';
import { ImportRequest, importProducts } from '../../commands/import';
import {
  createProduct,
  deleteProduct,
  getProduct,
  listProducts,
  replaceProduct,
  updateProduct,
  type NewProduct,
  type ProductChanges,
} from '../../commands/products';
import type { ProductFilters } from '../../commands/products';
import { presentProduct } from '../../presenters/product';
import { createProductBody, importQuery, listProductsQuery, replaceProductBody, updateProductBody } from './schema';

/** The largest CSV file an import accepts (the service's JSON parser keeps its own, smaller limit). */
const CSV_LIMIT = '5mb';

export function productModelsRouter(ctx: InventoryContext): Router {
  const { config } = ctx;
  const router = Router();
  const base = '/api/v1/product-models';

  router.get(`${base}/`, validate({ query: listProductsQuery }), async (req, res) => {
    const filters = req.query as unknown as ProductFilters;
    const { rows, count } = await listProducts(ctx, req.identity!, filters);
    res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentProduct)));
  });

  router.post(`${base}/`, validate({ body: createProductBody }), async (req, res) => {
    const body = req.body as NewProduct;
    res.status(201).json(presentProduct(await createProduct(ctx, req.identity!, body)));
  });

  router.post(`${base}/import/`, express.text({ type: 'text/csv', limit: CSV_LIMIT }), validate({ query: importQuery }), async (req, res) => {
    const { dry_run: dryRun } = req.query as unknown as { dry_run: boolean };
    const result = await importProducts(ctx, req.identity!, importRequestOf(req), dryRun);
    if (result.dry_run) res.status(200).json(result);
    else res.status(201).json({ imported: result.imported, dry_run: false, products: result.products.map(presentProduct) });
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentProduct(await getProduct(ctx, req.identity!, idParam(req))));
  });

  router.patch(`${base}/:id/`, validate({ params: schemas.idParams, body: updateProductBody }), async (req, res) => {
    const body = req.body as ProductChanges;
    res.json(presentProduct(await updateProduct(ctx, req.identity!, idParam(req), body)));
  });

  router.put(`${base}/:id/`, validate({ params: schemas.idParams, body: replaceProductBody }), async (req, res) => {
    const body = req.body as NewProduct;
    res.json(presentProduct(await replaceProduct(ctx, req.identity!, idParam(req), body)));
  });

  /** Only an unused product can be deleted (409 `product_in_use` otherwise); used ones are deactivated. */
  router.delete(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    await deleteProduct(ctx, req.identity!, idParam(req));
    res.status(204).end();
  });
  return router;
}

/** Which of the two accepted formats the request carries; anything else (or no Content-Type) is 415. */
function importRequestOf(req: express.Request): ImportRequest {
  if (req.is('text/csv')) return { format: 'csv', text: typeof req.body === 'string' ? req.body : '' };
  if (req.is('application/json')) return { format: 'json', body: req.body };
  const given = req.get('content-type');
  throw new AppError(415, 'unsupported_media_type', 'Send the import as application/json or text/csv.', {
    content_type: given ? `must be application/json or text/csv, not ${given}` : 'is required: application/json or text/csv',
  });
}

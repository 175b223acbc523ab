/**
 * /api/v1/batches/: batches (lots) of the company's BATCH products with their remaining stock (dashboard,
 * bearer token). Stock is booked through the ledger only; a batch is never deleted (movements name it).
 */
import { ID_OWNERS, buildPage, endpoints, pageSchema, schemas, type Call } from '@pi/common';
import type { InventoryContext } from '../../context';
import { createBatch, getBatch, listBatches, updateBatch, type BatchChanges, type BatchFilters, type NewBatch } from '../../commands/batches';
import { batchSchema, presentBatch } from '../../presenters/batch';
import { createBatchBody, listBatchesQuery, updateBatchBody } from './schema';

const base = '/api/v1/batches';
const tag = 'batches';
const params = schemas.idParams;

export const batchPageSchema = pageSchema(batchSchema, 'BatchPage');

export const batchEndpoints = endpoints<InventoryContext>(
  {
    method: 'get',
    path: `${base}/`,
    operationId: 'listBatches',
    tag,
    summary: 'List batches',
    description: 'By expiry date, undated last. Filter ids of another company answer 403, unknown ones 404.',
    security: 'bearer',
    request: { query: listBatchesQuery },
    responses: { 200: { description: 'One page of batches with their remaining stock.', schema: batchPageSchema } },
    errors: [404],
    ownedFilters: { product_id: ID_OWNERS.product },
    handle: async (ctx, { query, identity, req }: Call<BatchFilters>) => {
      const { rows, count } = await listBatches(ctx, identity, query);
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentBatch));
    },
  },
  {
    method: 'post',
    path: `${base}/`,
    operationId: 'createBatch',
    tag,
    summary: 'Create a batch',
    description: 'For a `BATCH` product, with no stock: stock arrives through bookings. A code already used in the company answers 409 `already_exists`.',
    security: 'bearer',
    request: { body: createBatchBody },
    responses: { 201: { description: 'The batch created.', schema: batchSchema } },
    errors: [404, 409],
    handle: async (ctx, { body, identity }: Call<unknown, NewBatch>) => presentBatch(await createBatch(ctx, identity, body)),
  },
  {
    method: 'get',
    path: `${base}/{id}/`,
    operationId: 'getBatch',
    tag,
    summary: 'Get a batch',
    security: 'bearer',
    request: { params },
    responses: { 200: { description: 'The batch with its remaining stock.', schema: batchSchema } },
    handle: async (ctx, { params, identity }: Call) => presentBatch(await getBatch(ctx, identity, params.id)),
  },
  {
    method: 'patch',
    path: `${base}/{id}/`,
    operationId: 'updateBatch',
    tag,
    summary: "Change a batch's code or expiry date",
    description: 'A code already used in the company answers 409 `already_exists`.',
    security: 'bearer',
    request: { params, body: updateBatchBody },
    responses: { 200: { description: 'The batch as changed.', schema: batchSchema } },
    errors: [409],
    handle: async (ctx, { params, body, identity }: Call<unknown, BatchChanges>) => presentBatch(await updateBatch(ctx, identity, params.id, body)),
  },
);

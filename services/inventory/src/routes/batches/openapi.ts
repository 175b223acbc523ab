/** The OpenAPI operations of /api/v1/batches/ (router.ts). */
import { operations, pageSchema, schemas } from '@pi/common';
import { batchSchema } from '../../presenters/batch';
import { createBatchBody, listBatchesQuery, updateBatchBody } from './schema';

const base = '/api/v1/batches';
const tag = 'batches';
const params = schemas.idParams;

export const batchPageSchema = pageSchema(batchSchema, 'BatchPage');

export const batchOperations = operations(
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
  },
);

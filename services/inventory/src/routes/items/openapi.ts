/** The OpenAPI operations of /api/v1/items/ (router.ts). */
import { operations, pageSchema, schemas } from '@pi/common';
import { createdItemSchema, itemSchema } from '../../presenters/item';
import { IDEMPOTENCY, REPLAYED_HEADER } from '../movements/openapi';
import { createItemBody, listItemsQuery, updateItemBody } from './schema';

const base = '/api/v1/items';
const tag = 'items';
const params = schemas.idParams;

export const itemPageSchema = pageSchema(itemSchema, 'ItemPage');

export const itemOperations = operations(
  {
    method: 'get',
    path: `${base}/`,
    operationId: 'listItems',
    tag,
    summary: 'List serialized items',
    description: 'Active items unless `is_active=false`. Filter ids of another company answer 403, unknown ones 404.',
    security: 'bearer',
    request: { query: listItemsQuery },
    responses: { 200: { description: 'One page of items.', schema: itemPageSchema } },
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/`,
    operationId: 'createItem',
    tag,
    summary: 'Create an item (books one unit in)',
    description:
      'The product must be `SERIALIZED`; one unit is booked in at the location through the ledger. A serial number already used in the ' +
      `company answers 409 \`already_exists\`.\n\n${IDEMPOTENCY}`,
    security: 'bearer',
    request: { body: createItemBody },
    responses: { 201: { description: 'The item and the movement that booked it in.', schema: createdItemSchema, headers: REPLAYED_HEADER } },
    errors: [404, 409],
  },
  {
    method: 'get',
    path: `${base}/{id}/`,
    operationId: 'getItem',
    tag,
    summary: 'Get an item',
    security: 'bearer',
    request: { params },
    responses: { 200: { description: 'The item.', schema: itemSchema } },
  },
  {
    method: 'patch',
    path: `${base}/{id}/`,
    operationId: 'updateItem',
    tag,
    summary: "Correct an item's serial number",
    description:
      'Only the serial number can change here (409 `already_exists` when taken): moving and retiring items are bookings ' +
      '(`transfer/`, `subtract` with `item_ids`).',
    security: 'bearer',
    request: { params, body: updateItemBody },
    responses: { 200: { description: 'The item as changed.', schema: itemSchema } },
    errors: [409],
  },
);

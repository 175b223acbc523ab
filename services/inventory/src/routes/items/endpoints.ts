/**
 * /api/v1/items/: the company's serialized physical items (dashboard, bearer token). Creating an item books
 * one unit in through the ledger; moving and retiring items are bookings too (transfer/, subtract), so PATCH
 * only corrects a serial number and there is no DELETE.
 */
import { ID_OWNERS, buildPage, endpoints, pageSchema, schemas, type Call } from '@pi/common';
import type { InventoryContext } from '../../context';
import { createItem, getItem, listItems, renameItem, type ItemFilters, type NewItem } from '../../commands/items';
import { requestOrigin, sendBooking } from '../../http/booking-request';
import { createdItemSchema, itemSchema, presentItem } from '../../presenters/item';
import { REPLAYED_HEADER } from '../movements/descriptions';
import { createItemBody, listItemsQuery, updateItemBody } from './schema';

const base = '/api/v1/items';
const tag = 'items';
const params = schemas.idParams;

export const itemPageSchema = pageSchema(itemSchema, 'ItemPage');

export const itemEndpoints = endpoints<InventoryContext>(
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
    ownedFilters: { product_id: ID_OWNERS.product, location_id: ID_OWNERS.location },
    handle: async (ctx, { query, identity, req }: Call<ItemFilters>) => {
      const { rows, count } = await listItems(ctx, identity, query);
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentItem));
    },
  },
  {
    method: 'post',
    path: `${base}/`,
    operationId: 'createItem',
    tag,
    summary: 'Create an item (books one unit in)',
    description:
      'The product must be `SERIALIZED`; one unit is booked in at the location through the ledger. A serial number already used in the ' +
      `company answers 409 \`already_exists\`.`,
    security: 'bearer',
    idempotencyKey: true,
    request: { body: createItemBody },
    responses: { 201: { description: 'The item and the movement that booked it in.', schema: createdItemSchema, headers: REPLAYED_HEADER } },
    errors: [404, 409],
    // The status and the Idempotent-Replayed header come with the booking's answer (a replay repeats the first one).
    handle: async (ctx, { body, identity, req, res }: Call<unknown, NewItem>) => {
      sendBooking(res, await createItem(ctx, identity, body, requestOrigin(req)));
    },
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
    handle: async (ctx, { params, identity }: Call) => presentItem(await getItem(ctx, identity, params.id)),
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
    handle: async (ctx, { params, body, identity }: Call<unknown, { serial_number: string }>) =>
      presentItem(await renameItem(ctx, identity, params.id, body.serial_number)),
  },
);

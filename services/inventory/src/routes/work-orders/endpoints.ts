/**
 * /api/v1/work-orders/: the company's work orders (dashboard, bearer token). Work orders are closed by moving
 * them to DONE or CANCELLED, never deleted (a QR code may point at one), so there is no DELETE.
 */
import { ID_OWNERS, buildPage, endpoints, pageSchema, schemas, type Call } from '@pi/common';
import type { InventoryContext } from '../../context';
import {
  createWorkOrder,
  getWorkOrder,
  listWorkOrders,
  updateWorkOrder,
  type NewWorkOrder,
  type WorkOrderChanges,
  type WorkOrderFilters,
} from '../../commands/work-orders';
import { presentWorkOrder, workOrderSchema } from '../../presenters/work-order';
import { createWorkOrderBody, listWorkOrdersQuery, updateWorkOrderBody } from './schema';
import { keyedBody, requestOrigin } from '../../http/booking-request';
import { REPLAYED_HEADER } from '../movements/descriptions';

const base = '/api/v1/work-orders';
const tag = 'work-orders';
const params = schemas.idParams;

export const workOrderPageSchema = pageSchema(workOrderSchema, 'WorkOrderPage');

export const workOrderEndpoints = endpoints<InventoryContext>(
  {
    method: 'get',
    path: `${base}/`,
    operationId: 'listWorkOrders',
    tag,
    summary: 'List work orders',
    description: 'A `product_id` of another company answers 403, an unknown one 404.',
    security: 'bearer',
    request: { query: listWorkOrdersQuery },
    responses: { 200: { description: 'One page of work orders.', schema: workOrderPageSchema } },
    errors: [404],
    ownedFilters: { product_id: ID_OWNERS.product },
    handle: async (ctx, { query, identity, req }: Call<WorkOrderFilters>) => {
      const { rows, count } = await listWorkOrders(ctx, identity, query);
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentWorkOrder));
    },
  },
  {
    method: 'post',
    path: `${base}/`,
    operationId: 'createWorkOrder',
    tag,
    summary: 'Create a work order',
    description:
      "A number already used in the company answers 409 `already_exists`. Without `number`, the company's next number is generated: " +
      '`WO-0001`, `WO-0002`, … (never one generated before, skipping numbers already taken).',
    security: 'bearer',
    idempotencyKey: true,
    request: { body: createWorkOrderBody },
    responses: { 201: { description: 'The work order created.', schema: workOrderSchema, headers: REPLAYED_HEADER } },
    errors: [404, 409],
    handle: async (ctx, { body, identity, req, res }: Call<unknown, NewWorkOrder>) =>
      keyedBody(res, await createWorkOrder(ctx, identity, body, requestOrigin(req))),
  },
  {
    method: 'get',
    path: `${base}/{id}/`,
    operationId: 'getWorkOrder',
    tag,
    summary: 'Get a work order',
    security: 'bearer',
    request: { params },
    responses: { 200: { description: 'The work order.', schema: workOrderSchema } },
    handle: async (ctx, { params, identity }: Call) => presentWorkOrder(await getWorkOrder(ctx, identity, params.id)),
  },
  {
    method: 'patch',
    path: `${base}/{id}/`,
    operationId: 'updateWorkOrder',
    tag,
    summary: 'Change a work order or its status',
    description:
      'Statuses: `OPEN` → `IN_PROGRESS`, `DONE`, `CANCELLED`; `IN_PROGRESS` → `OPEN`, `DONE`, `CANCELLED`; `DONE` and `CANCELLED` are ' +
      'final. Any other move answers 409 `invalid_transition` with `details {status, allowed_transitions}`; a number already used 409 `already_exists`.',
    security: 'bearer',
    request: { params, body: updateWorkOrderBody },
    responses: { 200: { description: 'The work order as changed.', schema: workOrderSchema } },
    errors: [404, 409],
    handle: async (ctx, { params, body, identity }: Call<unknown, WorkOrderChanges>) => presentWorkOrder(await updateWorkOrder(ctx, identity, params.id, body)),
  },
);

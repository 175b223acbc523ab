/**
 * /api/v1/notification-deliveries/: the delivery log, for debugging failed deliveries (admins only, like the
 * channels they belong to). Each delivery comes with its attempts; `retry/` sends a FAILED one again now.
 */
import { ID_OWNERS, buildPage, endpoints, pageSchema, reply, schemas, type Call } from '@pi/common';
import type { MonitorContext } from '../../context';
import { getDelivery, listDeliveries, retryDelivery, type DeliveryFilters } from '../../commands/deliveries';
import { deliverySchema, presentDelivery } from '../../presenters/delivery';
import { emptyBody, listDeliveriesQuery } from './schema';

const deliveryPage = pageSchema(deliverySchema, 'NotificationDeliveryPage');

export const deliveryEndpoints = endpoints<MonitorContext>(
  {
    method: 'get',
    path: '/api/v1/notification-deliveries/',
    operationId: 'listNotificationDeliveries',
    tag: 'notification-deliveries',
    summary: 'List deliveries, with their attempts',
    description: 'A `channel_id` or `event_id` of another company answers 403, one that exists nowhere 404.',
    security: 'bearer',
    adminOnly: true,
    request: { query: listDeliveriesQuery },
    responses: { 200: { description: 'A page of deliveries.', schema: deliveryPage } },
    errors: [404],
    ownedFilters: { channel_id: ID_OWNERS.channel, event_id: ID_OWNERS.event },
    handle: async (ctx, { query, identity, req }: Call<DeliveryFilters>) => {
      const { rows, count } = await listDeliveries(ctx, identity, query);
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentDelivery));
    },
  },
  {
    method: 'get',
    path: '/api/v1/notification-deliveries/{id}/',
    operationId: 'getNotificationDelivery',
    tag: 'notification-deliveries',
    summary: 'One delivery, with its attempts',
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams },
    responses: { 200: { description: 'The delivery.', schema: deliverySchema } },
    handle: async (ctx, { params, identity }: Call) => {
      return presentDelivery(await getDelivery(ctx, identity, params.id));
    },
  },
  {
    method: 'post',
    path: '/api/v1/notification-deliveries/{id}/retry/',
    operationId: 'retryNotificationDelivery',
    tag: 'notification-deliveries',
    summary: 'Send a failed delivery again now',
    description:
      'Only a `FAILED` delivery: it becomes `RETRYING`, due now, and its next attempt is queued at once (or made in this request without a ' +
      'queue). One more attempt per retry: if it fails after `max_attempts` were spent, the delivery is `FAILED` again. Any other status ' +
      'answers 409 `delivery_not_failed`; an inactive channel 409 `channel_inactive`, a paused one 409 `channel_paused`. Audited (`retry`). ' +
      'The body is empty or `{}`.',
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams, body: emptyBody },
    responses: {
      200: { description: 'Attempted in this request (without a queue): the delivery with its new attempt.', schema: deliverySchema },
      202: { description: 'Queued for the notifier (`REDIS_URL` set): the delivery, RETRYING and due now.', schema: deliverySchema },
    },
    errors: [409],
    handle: async (ctx, { params, identity }: Call) => {
      const { queued, delivery } = await retryDelivery(ctx, identity, params.id);
      const answer = presentDelivery(delivery);
      return queued ? reply(202, answer) : answer;
    },
  },
);

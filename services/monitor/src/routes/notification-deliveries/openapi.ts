/** /api/v1/notification-deliveries/ in the OpenAPI document: the delivery log, for admins. */
import { operations, pageSchema, schemas } from '@pi/common';
import { deliverySchema } from '../../presenters/delivery';
import { listDeliveriesQuery } from './schema';

const deliveryPage = pageSchema(deliverySchema, 'NotificationDeliveryPage');

export const deliveryOperations = operations(
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
  },
);

/** HTTP shapes of /api/v1/notification-deliveries/. */
import Joi from 'joi';
import { DELIVERY_STATUSES, EVENT_TYPES, orderingQuery, schemas } from '@pi/common';
import { DELIVERY_ORDERING } from '../../commands/orderings';

export const listDeliveriesQuery = Joi.object({
  ...schemas.pagination,
  channel_id: schemas.uuid,
  event_id: schemas.uuid,
  status: Joi.string().valid(...DELIVERY_STATUSES),
  event_type: Joi.string().valid(...EVENT_TYPES),
  ordering: orderingQuery(DELIVERY_ORDERING),
});

/** retry/: no body (or `{}`). */
export const emptyBody = Joi.object({});

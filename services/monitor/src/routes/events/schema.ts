/** HTTP shapes of /api/v1/events/. */
import Joi from 'joi';
import { EVENT_STATUSES, RULE_TRIGGER_TYPES, SEVERITIES, orderingQuery, schemas, searchQuery } from '@pi/common';
import { EVENT_ORDERING } from '../../commands/orderings';

export const listEventsQuery = Joi.object({
  ...schemas.pagination,
  status: Joi.string().valid(...EVENT_STATUSES),
  product_id: schemas.uuid,
  rule_id: schemas.uuid,
  trigger_type: Joi.string().valid(...RULE_TRIGGER_TYPES),
  severity: Joi.string().valid(...SEVERITIES),
  created_after: schemas.timestamp,
  created_before: schemas.timestamp,
  search: searchQuery('the message'),
  ordering: orderingQuery(EVENT_ORDERING),
});

/** resolve/ and ignore/ take no fields (an empty body or none at all). */
export const transitionBody = Joi.object({});

import Joi from 'joi';
import { EVENT_STATUSES, RULE_TRIGGER_TYPES, SEVERITIES } from '@pi/common';
import { RULE_SOURCES } from '../routes/monitoring-rules/schema';
import type { EventLogEntry } from '@pi/common';
import { EVENT_TRANSITIONS } from '../commands/events';

type EventRow = Pick<
  EventLogEntry,
  | 'id'
  | 'ruleId'
  | 'ruleSource'
  | 'productId'
  | 'batchId'
  | 'triggerType'
  | 'severity'
  | 'message'
  | 'details'
  | 'status'
  | 'statusChangedBy'
  | 'statusChangedAt'
  | 'createdAt'
>;

/** An event log entry; `allowed_transitions` are the moves a user may still make (`[]` once handled). */
export function presentEvent(e: EventRow) {
  return {
    id: e.id,
    rule_id: e.ruleId,
    rule_source: e.ruleSource,
    product_id: e.productId,
    batch_id: e.batchId,
    trigger_type: e.triggerType,
    severity: e.severity,
    message: e.message,
    details: e.details,
    status: e.status,
    allowed_transitions: [...EVENT_TRANSITIONS[e.status]],
    status_changed_by: e.statusChangedBy,
    status_changed_at: e.statusChangedAt,
    created_at: e.createdAt,
  };
}

/** The shape presentEvent answers, for the OpenAPI document. */
export const eventSchema = Joi.object({
  id: Joi.string().uuid().required(),
  rule_id: Joi.string().uuid().required().description('A stored rule, or the stable id of a rule from the product.'),
  rule_source: Joi.string()
    .valid(...RULE_SOURCES)
    .required(),
  product_id: Joi.string().uuid().required(),
  batch_id: Joi.string().uuid().allow(null).required().description('The batch of a DATE_OFFSET event.'),
  trigger_type: Joi.string()
    .valid(...RULE_TRIGGER_TYPES)
    .required(),
  severity: Joi.string()
    .valid(...SEVERITIES)
    .required(),
  message: Joi.string().required(),
  details: Joi.object().unknown(true).required().description('What the evaluation saw (quantities, dates, the condition).'),
  status: Joi.string()
    .valid(...EVENT_STATUSES)
    .required(),
  allowed_transitions: Joi.array()
    .items(Joi.string().valid(...EVENT_STATUSES))
    .required()
    .description('The moves a user may still make (`[]` once handled).'),
  status_changed_by: Joi.string().uuid().allow(null).required().description('The user who resolved or ignored it.'),
  status_changed_at: Joi.date().iso().allow(null).required(),
  created_at: Joi.date().iso().required(),
}).id('Event');

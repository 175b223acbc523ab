/**
 * HTTP shapes of /api/v1/monitoring-rules/. `condition_config` depends on `trigger_type` (docs/api/monitoring-and-notifications.md, condition
 * shapes); the same pieces check a PATCH's condition against the stored rule's type (commands/rules.ts).
 */
import Joi from 'joi';
import { ACCEPTED_TRIGGER_TYPES, SEVERITIES, dateOffsetCondition, orderingQuery, schemas, thresholdBounds } from '@pi/common';
import { RULE_ORDERING } from '../../commands/orderings';

export const RULE_SOURCES = ['rule', 'engine_config', 'attribute'] as const;

export const thresholdCondition = thresholdBounds
  .custom((value: { min?: number; max?: number }, helpers) => {
    if (value.min !== undefined && value.max !== undefined && value.min > value.max) {
      return helpers.error('threshold.order');
    }
    return value;
  })
  .messages({
    'object.missing': '{{#label}} must have min, max or both',
    'threshold.order': '{{#label}}.min must not be above {{#label}}.max',
  });

/** CUSTOM is reserved: whatever its condition, the command answers 400 not_implemented. */
const customCondition = Joi.object().unknown(true).default({});

export const conditionFor = { THRESHOLD: thresholdCondition, DATE_OFFSET: dateOffsetCondition } as const;

const name = Joi.string().trim().min(1).max(200).allow(null);
const severity = Joi.string().valid(...SEVERITIES);

export const createRuleBody = Joi.object({
  product_id: schemas.uuid.required(),
  trigger_type: Joi.string()
    .valid(...ACCEPTED_TRIGGER_TYPES)
    .required(),
  condition_config: Joi.when('trigger_type', {
    switch: [
      { is: 'THRESHOLD', then: thresholdCondition.required() },
      { is: 'DATE_OFFSET', then: dateOffsetCondition.required() },
    ],
    otherwise: customCondition,
  }),
  severity: severity.default('WARNING'),
  name,
  is_active: Joi.boolean().strict().default(true),
});

/** The product and the trigger type of a rule are fixed: to change them, create another rule. */
export const updateRuleBody = Joi.object({
  condition_config: Joi.object().unknown(true),
  severity,
  name,
  is_active: Joi.boolean().strict(),
}).min(1);

export const listRulesQuery = Joi.object({
  ...schemas.pagination,
  product_id: schemas.uuid,
  trigger_type: Joi.string().valid('THRESHOLD', 'DATE_OFFSET'),
  source: Joi.string().valid(...RULE_SOURCES),
  is_active: Joi.boolean(),
  ordering: orderingQuery(RULE_ORDERING),
});

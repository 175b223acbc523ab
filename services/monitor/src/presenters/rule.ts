import Joi from 'joi';
import { RULE_TRIGGER_TYPES, SEVERITIES } from '@pi/common';
import { RULE_SOURCES } from '../routes/monitoring-rules/schema';
import type { EffectiveRule } from '../rules/effective-rules';

/**
 * A monitoring rule, stored or implied by its product. `editable` is false for rules that come from the
 * product's engine_config (`source` `engine_config` or `attribute`): they change with the product.
 */
export function presentRule(r: EffectiveRule) {
  return {
    id: r.id,
    source: r.source,
    product_id: r.productId,
    name: r.name,
    trigger_type: r.triggerType,
    condition_config: r.conditionConfig,
    severity: r.severity,
    is_active: r.isActive,
    editable: r.source === 'rule',
  };
}

/** The shape presentRule answers, for the OpenAPI document. */
export const ruleSchema = Joi.object({
  id: Joi.string().uuid().required().description('Rules from a product have stable ids (UUIDv5 of the product and the origin).'),
  source: Joi.string()
    .valid(...RULE_SOURCES)
    .required()
    .description(
      "`rule` (created here), `engine_config` (the product's `engine_config.monitoring_rules`) or `attribute` (its `min_stock`, `min_threshold`, `max_stock`).",
    ),
  product_id: Joi.string().uuid().required(),
  name: Joi.string().allow(null).required(),
  trigger_type: Joi.string()
    .valid(...RULE_TRIGGER_TYPES)
    .required(),
  condition_config: Joi.object().unknown(true).required().description('THRESHOLD: `{min?, max?}`; DATE_OFFSET: `{date_field, days_offset}`.'),
  severity: Joi.string()
    .valid(...SEVERITIES)
    .required(),
  is_active: Joi.boolean().required(),
  editable: Joi.boolean().required().description('False for rules from the product (edit the product instead).'),
}).id('MonitoringRule');

/**
 * The shapes of a monitoring rule's `condition_config` (docs/api/monitoring-and-notifications.md, "Rule conditions"). Rules
 * arrive two ways, inside a product's `engine_config.monitoring_rules` (inventory) and through the rules API
 * (monitor); both validate with these pieces and report problems in their own answer formats.
 */
import Joi from 'joi';

/** Trigger types a request may name; `CUSTOM` is accepted by the schema and refused as not implemented. */
export const ACCEPTED_TRIGGER_TYPES = ['THRESHOLD', 'DATE_OFFSET', 'CUSTOM'] as const;
export const BATCH_DATE_FIELDS = ['expiration_date'] as const;

/** A stock level (min_stock, a THRESHOLD bound): JSON numbers only, never strings. */
export const stockLevel = Joi.number().strict().min(0).max(1e12);

/** THRESHOLD: `{min?, max?}`, at least one. The min ≤ max rule is checked by each caller in its own words. */
export const thresholdBounds = Joi.object({ min: stockLevel, max: stockLevel }).or('min', 'max');

/** DATE_OFFSET: a batch date field and a window in days (negative: after the date). */
export const dateOffsetCondition = Joi.object({
  date_field: Joi.string()
    .valid(...BATCH_DATE_FIELDS)
    .required(),
  days_offset: Joi.number().strict().integer().min(-3650).max(3650).required(),
});

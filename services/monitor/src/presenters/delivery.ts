import Joi from 'joi';
import { ATTEMPT_STATUSES, DELIVERY_STATUSES, EVENT_TYPES } from '@pi/common';
import type { DeliveryView } from '../commands/deliveries';

const FINAL_STATUSES = new Set(['DELIVERED', 'FAILED']);

/** The payload as sent (the webhook body; it carries no secret), parsed; null if it is not JSON. */
function bodyOf(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    return null;
  }
}

/**
 * A delivery with its attempts. `attempt_count` is how many attempts were made (one in flight included),
 * `attempts` what each one got; `next_attempt_at` is null once the delivery is DELIVERED or FAILED.
 */
export function presentDelivery({ delivery: d, attempts }: DeliveryView) {
  return {
    id: d.id,
    channel_id: d.channelId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempt_count: d.attempts,
    max_attempts: d.maxAttempts,
    next_attempt_at: FINAL_STATUSES.has(d.status) ? null : d.nextAttemptAt,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    delivered_at: d.deliveredAt,
    created_at: d.createdAt,
    body: bodyOf(d.payload),
    attempts: attempts.map((a) => ({
      number: a.number,
      status: a.status,
      ok: a.ok,
      status_code: a.statusCode,
      error: a.error,
      response_excerpt: a.responseExcerpt,
      duration_ms: a.durationMs,
      started_at: a.startedAt,
      finished_at: a.finishedAt,
    })),
  };
}

/** One attempt of a delivery, as presentDelivery shows it. */
const attemptSchema = Joi.object({
  number: Joi.number().integer().min(1).required(),
  status: Joi.string()
    .valid(...ATTEMPT_STATUSES)
    .required()
    .description(
      '`STARTED` while the send is in flight (written before it); `SUCCEEDED` or `FAILED` once it finished; `INTERRUPTED` when its sender ' +
        'stopped before it finished (counted as a failed attempt; the receiver may or may not have it).',
    ),
  ok: Joi.boolean().required().description('True only for `SUCCEEDED`.'),
  status_code: Joi.number().integer().allow(null).required().description("The receiver's HTTP status; null when none came (email, network error)."),
  error: Joi.string().allow(null).required().description('Truncated and scrubbed of secrets.'),
  response_excerpt: Joi.string().allow(null).required().description('Truncated and scrubbed of secrets.'),
  duration_ms: Joi.number().integer().min(0).required(),
  started_at: Joi.date().iso().required(),
  finished_at: Joi.date().iso().allow(null).required().description('Null while `STARTED`.'),
}).id('NotificationAttempt');

/** The shape presentDelivery answers, for the OpenAPI document. */
export const deliverySchema = Joi.object({
  id: Joi.string().uuid().required(),
  channel_id: Joi.string().uuid().required(),
  event_id: Joi.string().uuid().allow(null).required().description('Null for TEST deliveries.'),
  event_type: Joi.string()
    .valid(...EVENT_TYPES)
    .required(),
  status: Joi.string()
    .valid(...DELIVERY_STATUSES)
    .required(),
  attempt_count: Joi.number().integer().min(0).required(),
  max_attempts: Joi.number().integer().min(1).required(),
  next_attempt_at: Joi.date().iso().allow(null).required().description('Null once DELIVERED or FAILED.'),
  last_status_code: Joi.number().integer().allow(null).required(),
  last_error: Joi.string().allow(null).required(),
  delivered_at: Joi.date().iso().allow(null).required(),
  created_at: Joi.date().iso().required(),
  body: Joi.object().unknown(true).allow(null).required().description('The payload as sent (the webhook body; it carries no secret).'),
  attempts: Joi.array().items(attemptSchema).required(),
}).id('NotificationDelivery');

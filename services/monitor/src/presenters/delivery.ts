import type { DeliveryView } from '../commands/deliveries';

const FINAL_STATUSES = new Set(['DELIVERED', 'FAILED']);

/** The payload as sent (SPEC.md's webhook body; it carries no secret), parsed; null if it is not JSON. */
function bodyOf(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    return null;
  }
}

/**
 * A delivery with its attempts. `attempt_count` is how many attempts were made, `attempts` what each
 * one got; `next_attempt_at` is null once the delivery is DELIVERED or FAILED.
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
      ok: a.ok,
      status_code: a.statusCode,
      error: a.error,
      response_excerpt: a.responseExcerpt,
      duration_ms: a.durationMs,
      started_at: a.startedAt,
    })),
  };
}

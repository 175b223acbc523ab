/**
 * The notification body (docs/api/monitoring-and-notifications.md, "The webhook body"): the one JSON document every channel receives for an
 * event. Webhooks send it as is (and sign those exact bytes); emails are rendered from it. It is built once,
 * when the delivery rows are created, and stored in `notification_deliveries.payload`, so every retry sends
 * the same bytes with the same signature.
 *
 * Key order is fixed (the order of the table in docs/api/monitoring-and-notifications.md) so the text is stable and easy to read in logs of the
 * receiver.
 *
 * A TEST event (a manual test from the dashboard) has no product, rule or event log entry behind it. Its body
 * has the same shape so that a receiver exercises its real parsing code:
 *
 *   event_id   a fresh UUID (the delivery row's `event_id` is null; the body still names the event once)
 *   type       "TEST"
 *   product    {"id": null, "sku": null, "name": "Test notification"}
 *   payload    {"message": "This is a test notification …", "severity": "INFO", "rule_id": null,
 *               "batch_id": null, "status": "OPEN"}
 */
import { randomUUID } from 'node:crypto';
import { EVENT_TYPES, type EventType } from '@pi/common/core';

export interface EventBodyProduct {
  /** Null only in a TEST body. */
  id: string | null;
  sku: string | null;
  name: string;
}

/** The parsed body, with the field names the webhook body promises (docs/api/monitoring-and-notifications.md). */
export interface EventBody {
  event_id: string;
  type: EventType;
  company_id: string;
  product: EventBodyProduct;
  payload: {
    message: string;
    severity: string;
    rule_id: string | null;
    batch_id: string | null;
    status: string;
  };
  /** ISO 8601 UTC, e.g. `2025-01-31T09:30:00.000Z`. */
  created_at: string;
}

export interface EventBodyInput {
  eventId: string;
  type: EventType;
  companyId: string;
  product: EventBodyProduct;
  message: string;
  severity: string;
  /** Null only in a TEST body. */
  ruleId: string | null;
  batchId: string | null;
  /** `OPEN` at creation. */
  status: string;
  createdAt: Date | string;
}

export const TEST_PRODUCT_NAME = 'Test notification';
export const TEST_MESSAGE = 'This is a test notification from the inventory service. If you can read it, the channel works.';

function isoUtc(value: Date | string): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new TypeError('created_at must be a valid date');
  return date.toISOString();
}

/** The exact JSON text of the webhook body for one event. */
export function buildEventBody(input: EventBodyInput): string {
  if (!EVENT_TYPES.includes(input.type)) throw new TypeError(`unknown event type: ${String(input.type)}`);
  const body: EventBody = {
    event_id: input.eventId,
    type: input.type,
    company_id: input.companyId,
    product: { id: input.product.id, sku: input.product.sku, name: input.product.name },
    payload: {
      message: input.message,
      severity: input.severity,
      rule_id: input.ruleId,
      batch_id: input.batchId ?? null,
      status: input.status,
    },
    created_at: isoUtc(input.createdAt),
  };
  return JSON.stringify(body);
}

/** The body of a TEST delivery (see the module header for its shape). */
export function buildTestBody(companyId: string, now: Date = new Date(), eventId: string = randomUUID()): string {
  return buildEventBody({
    eventId,
    type: 'TEST',
    companyId,
    product: { id: null, sku: null, name: TEST_PRODUCT_NAME },
    message: TEST_MESSAGE,
    severity: 'INFO',
    ruleId: null,
    batchId: null,
    status: 'OPEN',
    createdAt: now,
  });
}

/** Parses a stored body back; throws when it is not a body this module built. */
export function parseEventBody(text: string): EventBody {
  const value = JSON.parse(text) as Partial<EventBody> | null;
  if (
    !value ||
    typeof value !== 'object' ||
    typeof value.event_id !== 'string' ||
    !EVENT_TYPES.includes(value.type as EventType) ||
    !value.product ||
    typeof value.product !== 'object' ||
    !value.payload ||
    typeof value.payload !== 'object'
  ) {
    throw new TypeError('not a notification body');
  }
  return value as EventBody;
}

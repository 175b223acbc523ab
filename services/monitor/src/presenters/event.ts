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

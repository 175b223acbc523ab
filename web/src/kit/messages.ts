/** What both pages tell people while a booking is retried (kit/api.ts) and when its outcome stays unknown. */
import { type ApiError, NETWORK_ERROR, type RetryNotice } from './api.js';

function reason(err: ApiError): string {
  if (err.status === NETWORK_ERROR) return 'The connection failed';
  if (err.status === 504) return 'The service took too long to answer';
  return 'The service is unavailable';
}

/** What a request sent with an Idempotency-Key is to the person who sent it: a booking, an import, a new record. */
export type KeyedAction = 'booking' | 'import' | 'location' | 'work order';
/** How each is said: "the booking was made", "it is booked once at most". */
const WORDS: Record<KeyedAction, { made: string; done: string }> = {
  booking: { made: 'made', done: 'booked' },
  import: { made: 'made', done: 'imported' },
  location: { made: 'created', done: 'created' },
  'work order': { made: 'created', done: 'created' },
};

/** Said before a retry: why, when, and that it cannot happen twice. */
export function retryText(notice: RetryNotice, action: KeyedAction = 'booking'): string {
  const seconds = Math.max(1, Math.round(notice.delayMs / 1000));
  return `${reason(notice.error)}: trying again in ${seconds} s (attempt ${notice.attempt} of ${notice.attempts}). It is the same ${action}, so it cannot be ${WORDS[action].done} twice.`;
}

/** Said when the last attempt of a keyed request failed without an answer. */
export const unknownOutcomeText = (action: KeyedAction = 'booking'): string =>
  `It is not known whether the ${action} was ${WORDS[action].made}. Send it again unchanged: it carries the same key, so it is ${WORDS[action].done} once at most.`;

// ---------------------------------------------------------------------------------------------- API errors in words
//
// The API's errors are written for the developers who call it (field paths, `PATCH is_active: false`, table
// names in `details`). What a person reads is said here instead, in sentences; the error shape itself is the
// API's (docs/api/conventions.md) and is never changed. docs/api/overview-and-appearance.md lists the rules.

/** Names of the API's fields and path segments as a person says them. */
const FIELD_WORDS: Record<string, string> = {
  engine_config: 'engine settings',
  engine_type: 'engine type',
  monitoring_rules: 'monitoring rule',
  condition_config: 'condition',
  min_stock: 'minimum stock',
  max_stock: 'maximum stock',
  min_threshold: 'minimum threshold',
  min: 'minimum',
  max: 'maximum',
  days_offset: 'days before the date',
  date_field: 'date',
  trigger_type: 'trigger',
  is_active: 'active',
  product_id: 'product',
  location_id: 'location',
  from_location_id: 'source location',
  to_location_id: 'destination location',
  parent_id: 'parent location',
  batch_id: 'batch',
  batch_code: 'batch code',
  item_ids: 'items',
  serial_numbers: 'serial numbers',
  expiration_date: 'expiration date',
  expires_before: 'expires before',
  expires_at: 'expiry',
  allowed_domains: 'allowed domains',
  sku: 'SKU',
  url: 'URL',
  used_by: 'used by',
  stock_movements: 'stock movements',
  stock_balances: 'stock',
  physical_items: 'serial-numbered items',
  batches: 'batches',
  work_orders: 'work orders',
  work_order_lines: 'work order lines',
  qr_codes: 'QR codes',
  monitoring_rules_table: 'monitoring rules',
  event_log: 'events',
};

const capitalize = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const word = (segment: string) => FIELD_WORDS[segment] ?? segment.replace(/_/g, ' ');

/**
 * A field path of the API (`engine_config.monitoring_rules.0.condition_config.max`) as a person says it
 * ("Engine settings, monitoring rule 1, condition, maximum"): list positions count from 1.
 */
export function fieldName(path: string): string {
  const parts: string[] = [];
  for (const segment of path.split('.').filter(Boolean)) {
    if (/^\d+$/.test(segment) && parts.length) parts[parts.length - 1] += ` ${Number(segment) + 1}`;
    else parts.push(word(segment));
  }
  return capitalize(parts.join(', '));
}

/** Identifiers inside a message (`max_stock must not be below min_stock`) replaced by their words. */
export function humanText(message: string): string {
  return message
    .replace(/\s*\((?:PATCH|PUT|POST|DELETE) [^)]*\)/g, '')
    .replace(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\.(?:\d+|[a-z][a-z0-9_]*))*\b/g, (id) =>
      fieldName(id)
        .toLowerCase()
        .replace(/\bsku\b/, 'SKU'),
    )
    .replace(/\s+\./g, '.');
}

/** What the API's error messages with developer wording say to people, by error code. */
const CODE_TEXTS: Record<string, string> = {
  product_in_use: 'This product has stock or history, so it cannot be deleted. Deactivate it instead: it keeps its history and leaves the widget.',
  channel_inactive: 'The channel is inactive. Activate it first, then test it.',
};

/** The sentence shown for an API error: its code's own text, else its message with identifiers in words. */
export function errorText(code: string | undefined, message: string): string {
  return (code && CODE_TEXTS[code]) || humanText(message);
}

/** A value of an error's `details` as a sentence part: lists joined, identifiers in words. */
export function detailValue(value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => detailValue(v)).join(', ');
  if (typeof value === 'string') return humanText(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${fieldName(k).toLowerCase()}: ${detailValue(v)}`)
      .join('; ');
  }
  return String(value);
}

/** One `details` entry of an error as a sentence ("Used by: stock movements."). */
export function detailSentence(key: string, value: unknown): string {
  if (key === 'used_by') return `It is still used by ${detailValue(value)}.`;
  const text = detailValue(value);
  return `${fieldName(key)}: ${text}${/[.!?]$/.test(text) ? '' : '.'}`;
}

/** A monitoring rule's name as a person reads it: its own name, else what its origin on the product means. */
export function ruleLabel(rule: { name: string | null; trigger_type: string }): string {
  if (rule.name && /^(min_stock|max_stock|min_threshold)$/.test(rule.name)) return capitalize(word(rule.name));
  if (rule.name && rule.name.startsWith('engine_config.')) return fieldName(rule.name.slice('engine_config.'.length));
  return rule.name || `${capitalize(rule.trigger_type.toLowerCase().replace(/_/g, ' '))} rule`;
}

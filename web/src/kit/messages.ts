/** What both pages tell people while a booking is retried (kit/api.ts) and when its outcome stays unknown. */
import { type ApiError, NETWORK_ERROR, type RetryNotice } from './api.js';

function reason(err: ApiError): string {
  if (err.status === NETWORK_ERROR) return 'The connection failed';
  if (err.status === 504) return 'The service took too long to answer';
  return 'The service is unavailable';
}

/** Said before a retry: why, when, and that it cannot book twice. */
export function retryText(notice: RetryNotice): string {
  const seconds = Math.max(1, Math.round(notice.delayMs / 1000));
  return `${reason(notice.error)}: trying again in ${seconds} s (attempt ${notice.attempt} of ${notice.attempts}). It is the same booking, so it cannot be booked twice.`;
}

/** Said when the last attempt of a booking failed without an answer. */
export const UNKNOWN_OUTCOME_TEXT =
  'It is not known whether the booking was made. Send it again unchanged: it carries the same key, so it is booked once at most.';

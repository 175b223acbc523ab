/** What the widget tells people about errors: the service's own message, plus what to do next. */
import { ApiError, NETWORK_ERROR } from './api.js';
import { unknownOutcomeText } from '../kit/messages.js';

export function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  return minutes < 90 ? `${minutes} min` : `${Math.ceil(minutes / 60)} h`;
}

/**
 * One readable sentence (or two) for an error of any call. `booking`: the call was a booking whose attempts
 * all failed without an answer, which is then said to be unknown (and safe to send again).
 */
/** The page a key's allowed domains judge: this one, or the page the widget is embedded in (`embeddedIn`). */
let judgedOrigin = window.location.origin;

/** From now on the widget speaks for the page at `origin`, which embeds it. */
export function embeddedIn(origin: string): void {
  judgedOrigin = origin;
}

export function errorText(err: unknown, booking = false): string {
  if (!(err instanceof ApiError)) return `Something went wrong: ${err instanceof Error ? err.message : String(err)}`;
  if (booking && err.outcomeUnknown) return `${err.message} ${unknownOutcomeText()}${err.requestId ? ` (Request ${err.requestId})` : ''}`;
  if (err.status === NETWORK_ERROR) return err.message;
  if (err.status === 429) {
    const wait = err.retryAfter ?? 60;
    return `Too many requests. Please wait ${waitText(wait)} and try again.`;
  }
  if (err.code === 'origin_not_allowed') {
    return `${err.message} This key's allowed domains do not include ${judgedOrigin}; ask your administrator to add it.`;
  }
  if (err.code === 'permission_denied') return `${err.message} Ask your administrator for a key with this permission.`;
  if (err.status === 401) return `${err.message} Scan the code again to start a new session.`;
  if (err.code === 'stock_changed') {
    const d = err.details as { expected_quantity?: number; current_quantity?: number };
    return `${err.message} You counted from ${d.expected_quantity}, but the stock there is now ${d.current_quantity}. Check the count and book it again.`;
  }
  if (err.code === 'validation_error' || err.status === 400) {
    const parts = Object.entries(err.details).flatMap(([k, v]) => (typeof v === 'string' ? [`${k.replace(/_/g, ' ')}: ${v}`] : []));
    return parts.length > 0 ? `${err.message} ${parts.join('; ')}.` : err.message;
  }
  if (err.status >= 500) return `${err.message} Please try again in a moment.${err.requestId ? ` (Request ${err.requestId})` : ''}`;
  return err.message;
}

/**
 * The OpenAPI text the core's stock history (endpoints.ts here) and the widget's share. The operations themselves
 * are declared with their handlers, in endpoints.ts.
 */
import { MAX_HISTORY_POINTS } from '../../commands/stock-history';

/** What both history operations (core and widget) say of their periods. */
export const HISTORY_DESCRIPTION =
  'Computed from the ledger: each point is the balance at the end of a period (`at`, 00:00 UTC of the next period), ' +
  'every movement booked before that instant counted. Periods are UTC days, ISO weeks (Monday to Sunday) or calendar months, ' +
  `from the one holding \`from\` to the one holding \`to\`, at most ${MAX_HISTORY_POINTS}; more, \`from\` after \`to\`, or a malformed ` +
  'date or interval answer 400 naming the field. Periods after today repeat the current balance.';

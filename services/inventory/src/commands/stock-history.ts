/**
 * Stock over time (docs/api/stock-history.md): the periods a request asks for, checked and bounded, then the
 * balances at their ends from the ledger in one statement (sql/stock-history.ts). Dates are UTC calendar days.
 */
import { Identity, ProductModel, ValidationError, assertScanReachesProduct, findOwned } from '@pi/common';
import type { InventoryContext } from '../context';
import { HistoryInterval, HistoryRow, stockHistoryRows } from '../sql/stock-history';
import { stockFilterLocation } from './stock-levels';

export const HISTORY_INTERVALS: readonly HistoryInterval[] = ['day', 'week', 'month'];
/** At most this many points per answer (about 13 months by day, 7 years by week, 33 years by month). */
export const MAX_HISTORY_POINTS = 400;
/** Points when `from` is not given: 30 days, 12 weeks or 12 months ending with `to`'s period. */
export const DEFAULT_HISTORY_POINTS: Readonly<Record<HistoryInterval, number>> = { day: 30, week: 12, month: 12 };
/** The last `to` whose period still ends in the year 9999 (an `at` in year 10000 would not be ISO 8601 as the API writes it). */
export const LAST_HISTORY_DAY = '9999-11-30';

export interface HistoryQuery {
  product_id: string;
  location_id?: string;
  interval: HistoryInterval;
  from?: string;
  to?: string;
}

export interface StockHistory {
  product: ProductModel;
  locationId: string | null;
  interval: HistoryInterval;
  from: string;
  to: string;
  rows: HistoryRow[];
}

const DAY_MS = 86_400_000;
const toDate = (day: string) => new Date(`${day}T00:00:00Z`);
const toDay = (date: Date) => date.toISOString().slice(0, 10);

/** The first day of the period holding `day`: itself, its ISO week's Monday, or its month's first. */
export function periodStart(day: string, interval: HistoryInterval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 8)}01`;
  const date = toDate(day);
  return toDay(new Date(date.getTime() - ((date.getUTCDay() + 6) % 7) * DAY_MS));
}

/** The first day of the period `n` periods after the one starting on `start` (n may be negative). */
export function addPeriods(start: string, interval: HistoryInterval, n: number): string {
  const date = toDate(start);
  if (interval === 'month') date.setUTCMonth(date.getUTCMonth() + n);
  else date.setUTCDate(date.getUTCDate() + n * (interval === 'week' ? 7 : 1));
  return toDay(date);
}

/** How many periods from the one starting on `first` to the one starting on `last`, both included. */
function periodCount(first: string, last: string, interval: HistoryInterval): number {
  if (interval === 'month') return (Number(last.slice(0, 4)) - Number(first.slice(0, 4))) * 12 + Number(last.slice(5, 7)) - Number(first.slice(5, 7)) + 1;
  return Math.round((toDate(last).getTime() - toDate(first).getTime()) / (DAY_MS * (interval === 'week' ? 7 : 1))) + 1;
}

/** The instant a period ends (the next one's start, 00:00 UTC), ISO 8601: what `at` of a point says. */
export function periodEnd(start: string, interval: HistoryInterval): string {
  return toDate(addPeriods(start, interval, 1)).toISOString();
}

/** `from`, `to` and the first days of the first and last period; 400 naming the field when they do not fit. */
export function historyRange(query: Pick<HistoryQuery, 'interval' | 'from' | 'to'>, today = toDay(new Date())) {
  const { interval } = query;
  const to = query.to ?? today;
  if (to > LAST_HISTORY_DAY) throw new ValidationError({ to: `to must be on or before ${LAST_HISTORY_DAY}` });
  const lastPeriod = periodStart(to, interval);
  const from =
    query.from ??
    (() => {
      const first = addPeriods(lastPeriod, interval, 1 - DEFAULT_HISTORY_POINTS[interval]);
      return first < '0001-01-01' || first.startsWith('-') ? '0001-01-01' : first;
    })();
  if (from > to) throw new ValidationError({ from: 'from must be on or before to' });
  const firstPeriod = periodStart(from, interval);
  const points = periodCount(firstPeriod, lastPeriod, interval);
  if (points > MAX_HISTORY_POINTS) {
    throw new ValidationError({
      from: `from to to spans ${points} ${interval}s; at most ${MAX_HISTORY_POINTS} points per request (a later from, or a longer interval)`,
    });
  }
  return { from, to, firstPeriod, lastPeriod };
}

/**
 * A product's history, optionally at one physical location. The route's ownedFilters step has checked whose
 * the ids are; the product is read for its unit and decimals, a VIRTUAL location is refused like on the stock list.
 */
export async function stockHistory(ctx: InventoryContext, identity: Identity, query: HistoryQuery): Promise<StockHistory> {
  const { sequelize } = ctx;
  assertScanReachesProduct(identity, query.product_id);
  const range = historyRange(query);
  const [product] = await Promise.all([
    findOwned(ProductModel, query.product_id, identity.companyId, { what: 'Product' }),
    query.location_id ? stockFilterLocation(ctx, identity, query.location_id) : undefined,
  ]);
  const rows = await stockHistoryRows(sequelize, {
    companyId: identity.companyId,
    productId: product.id,
    locationId: query.location_id,
    interval: query.interval,
    firstPeriod: range.firstPeriod,
    lastPeriod: range.lastPeriod,
  });
  return { product, locationId: query.location_id ?? null, interval: query.interval, from: range.from, to: range.to, rows };
}

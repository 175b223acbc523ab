import Joi from 'joi';
import { orderingQuery, schemas, searchQuery } from '@pi/common';
import { STOCK_ORDERING } from '../../sql/orderings';
import { namedFilterSchemas } from '../../http/named-filters';
import { calendarDate } from '../../http/calendar-date';
import { HISTORY_INTERVALS, LAST_HISTORY_DAY, MAX_HISTORY_POINTS } from '../../commands/stock-history';

/** The list's filters (the spreadsheet export takes them too). */
export const stockFilterKeys = {
  product_id: schemas.uuid,
  location_id: schemas.uuid.description('Totals then count this location only.'),
  sku: namedFilterSchemas.sku,
  location_name: namedFilterSchemas.location_name.description('Totals then count the location(s) with this exact name, ignoring case.'),
  below_min: Joi.boolean().description(
    '`true`: only products whose `engine_config.min_stock` is set and whose total (at `location_id` / `location_name` when given) is below it; `false`: the others.',
  ),
  search: searchQuery('the SKU or the name of the product'),
};

export const stockQuery = Joi.object({ ...schemas.pagination, ...stockFilterKeys, ordering: orderingQuery(STOCK_ORDERING) });

export const importStockQuery = Joi.object({
  dry_run: Joi.boolean().default(false).description('Check every row and book nothing.'),
});

/** The period fields of a stock history, core and widget (docs/api/stock-history.md). */
export const historyRangeFields = {
  interval: Joi.string()
    .valid(...HISTORY_INTERVALS)
    .default('day')
    .description('The length of a period: a UTC day, an ISO week (from Monday) or a calendar month.'),
  from: calendarDate.description('The first day (UTC), `YYYY-MM-DD`; default: 30 days, 12 weeks or 12 months before `to`, its period included.'),
  to: calendarDate.description(
    `The last day (UTC), \`YYYY-MM-DD\`, at latest ${LAST_HISTORY_DAY}; default: today. At most ${MAX_HISTORY_POINTS} periods from \`from\` to \`to\`.`,
  ),
};

export const stockHistoryQuery = Joi.object({
  product_id: schemas.uuid.required(),
  location_id: schemas.uuid.description('Balances at this physical location only; without it, all physical locations together.'),
  ...historyRangeFields,
});

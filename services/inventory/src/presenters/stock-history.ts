import Joi from 'joi';
import type { StockHistory } from '../commands/stock-history';
import { HISTORY_INTERVALS, periodEnd } from '../commands/stock-history';
import { stockDisplay, toNumber } from '../engine/quantity';
import { calendarDay, displaySchema, quantitySchema, timestamp, uuid } from './schemas';

/** A product's stock over time (docs/api/stock-history.md): one point per period, oldest first. */
export function presentStockHistory({ product, locationId, interval, from, to, rows }: StockHistory) {
  return {
    product_id: product.id,
    location_id: locationId,
    interval,
    from,
    to,
    unit: product.unit,
    decimals: product.decimals,
    points: rows.map((r) => ({
      period: r.period,
      at: periodEnd(r.period, interval),
      quantity: toNumber(r.quantity),
      stock_display: stockDisplay(r.quantity, product.decimals, product.unit),
    })),
  };
}

/** The answer schema of a point of `presentStockHistory` (OpenAPI). */
export const stockHistoryPointSchema = Joi.object({
  period: calendarDay.required().description('The first day of the period (UTC): the day, the Monday of the ISO week, or the first of the month.'),
  at: timestamp
    .required()
    .description('The end of the period (00:00 UTC of the next one): the balance is the one at this instant, every movement booked before it counted.'),
  quantity: quantitySchema.required(),
  stock_display: displaySchema.required(),
}).id('StockHistoryPoint');

/** The answer schema of `presentStockHistory` (OpenAPI). */
export const stockHistorySchema = Joi.object({
  product_id: uuid.required(),
  location_id: uuid.allow(null).required().description('The location the balances are at, or null for all physical locations together.'),
  interval: Joi.string()
    .valid(...HISTORY_INTERVALS)
    .required(),
  from: calendarDay.required().description('The first day asked for (or its default); the first point is the period holding it.'),
  to: calendarDay.required().description('The last day asked for (or today, UTC); the last point is the period holding it.'),
  unit: Joi.string().required(),
  decimals: Joi.number().integer().min(0).required(),
  points: Joi.array()
    .items(stockHistoryPointSchema)
    .required()
    .description('One per period from the one holding `from` to the one holding `to`, oldest first.'),
}).id('StockHistory');

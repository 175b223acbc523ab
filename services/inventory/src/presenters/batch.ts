import Joi from 'joi';
import { stockDisplay, toNumber } from '../engine/quantity';
import { calendarDay, displaySchema, quantitySchema, timestamp, uuid } from './schemas';

/** What a batch answer needs: the batch, its remaining quantity (NUMERIC string) and its product's format. */
export interface BatchRow {
  id: string;
  productId: string;
  code: string;
  expirationDate: string | null;
  createdAt: Date;
  /** SUM of the batch's balance rows, as PostgreSQL returns NUMERIC. */
  quantity: string;
  unit: string;
  decimals: number;
}

/** A batch on core endpoints. */
export function presentBatch(b: BatchRow) {
  return {
    id: b.id,
    product_id: b.productId,
    code: b.code,
    expiration_date: b.expirationDate,
    quantity: toNumber(b.quantity),
    stock_display: stockDisplay(b.quantity, b.decimals, b.unit),
    created_at: b.createdAt,
  };
}

/** The widget's batches of one product (those with stock left). */
export function presentWidgetBatch(b: Omit<BatchRow, 'productId' | 'createdAt'>) {
  return {
    id: b.id,
    code: b.code,
    expiration_date: b.expirationDate,
    quantity: toNumber(b.quantity),
    stock_display: stockDisplay(b.quantity, b.decimals, b.unit),
  };
}

/** The answer schema of `presentBatch` (OpenAPI). */
export const batchSchema = Joi.object({
  id: uuid.required(),
  product_id: uuid.required(),
  code: Joi.string().required(),
  expiration_date: calendarDay.allow(null).required(),
  quantity: quantitySchema.required().description('Remaining stock over all locations.'),
  stock_display: displaySchema.required(),
  created_at: timestamp.required(),
}).id('Batch');

/** The answer schema of `presentWidgetBatch` (OpenAPI). */
export const widgetBatchSchema = Joi.object({
  id: uuid.required(),
  code: Joi.string().required(),
  expiration_date: calendarDay.allow(null).required(),
  quantity: quantitySchema.required(),
  stock_display: displaySchema.required(),
}).id('WidgetBatch');

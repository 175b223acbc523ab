import { stockDisplay, toNumber } from '../engine/quantity';

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

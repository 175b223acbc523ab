/**
 * The refusals of a booking, in one place for both ways a booking runs (one statement, or a transaction of
 * several): the same problem answers the same status, code and text whichever path found it.
 */
import { ConflictError, ValidationError } from '@pi/common';
import { toNumber } from '../engine/quantity';

/** 409 insufficient_stock, with what is there so the client can offer it. */
export class InsufficientStockError extends ConflictError {
  constructor(available: string, requested: string, locationId: string, batchId: string | null = null) {
    super('insufficient_stock', `Insufficient stock: ${toNumber(available)} available, ${toNumber(requested)} requested.`, {
      available: toNumber(available),
      requested: toNumber(requested),
      location_id: locationId,
      ...(batchId ? { batch_id: batchId } : {}),
    });
  }
}

export const inactiveProduct = () => new ValidationError({ product_id: 'product is inactive' });
export const virtualLocation = (field: string) => new ValidationError({ [field]: 'must be a physical location' });
export const inactiveLocation = (field: string) => new ValidationError({ [field]: 'location is inactive' });
export const sameLocation = () => new ValidationError({ to_location_id: 'must differ from from_location_id' });
export const quantityRequired = (field = 'quantity') => new ValidationError({ [field]: 'is required' });

/** 409 stock_changed: a count's `expected_quantity` is not what is there (the compare-and-swap failed). */
export const stockChanged = (expected: string, current: string) =>
  new ConflictError('stock_changed', 'The stock changed since it was counted.', { expected_quantity: toNumber(expected), current_quantity: toNumber(current) });

export const idempotencyKeyReused = () =>
  new ConflictError('idempotency_key_reused', 'This Idempotency-Key was used with another request.', { 'Idempotency-Key': 'was used with another request' });

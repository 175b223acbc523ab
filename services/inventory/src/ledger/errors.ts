import { ConflictError } from '@pi/common';
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

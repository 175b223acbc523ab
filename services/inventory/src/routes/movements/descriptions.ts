/**
 * The OpenAPI texts the core's booking endpoints (endpoints.ts here, items/endpoints.ts) and the widget's share.
 * The operations themselves are declared with their handlers, in endpoints.ts.
 */

/** The stock errors every booking can answer. */
export const BOOKING_ERRORS =
  'Not enough stock answers 409 `insufficient_stock` (`details {available, requested, location_id, batch_id?}`); a VIRTUAL or ' +
  'inactive location 400. `BATCH` products name a batch (`batch_id`, or `batch {code, expiration_date?}` on additions; subtractions ' +
  'and transfers without one take the earliest-expiring batches first); `SERIALIZED` products take `serial_numbers` on additions and ' +
  '`item_ids` on subtractions and transfers (409 `item_unavailable` when one is not there).';

export const REPLAYED_HEADER = { 'Idempotent-Replayed': '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`.' };

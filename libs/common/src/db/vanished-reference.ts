/**
 * A row that references a record (a product, a channel) reached the database after another request deleted
 * that record, between this request's check that it exists and its insert: PostgreSQL refuses the reference
 * (23503, "is not present in table"). To the client the id names nothing, as if the delete had come a moment
 * earlier, so the answer is the 404 of an id that names nothing (docs/api/conventions.md), not a 500. A delete
 * refused because rows still reference the record ("is still referenced from") is answered where it is made.
 */
import { NotFoundError } from '../errors';

const FOREIGN_KEY_VIOLATION = '23503';
const MISSING = /^Key \([a-z_]+\)=\(.*\) is not present in table "([a-z_]+)"\.$/s;

/** What a 404 calls a record of each table that rows reference. */
const WHAT: Readonly<Record<string, string>> = {
  product_models: 'Product',
  locations: 'Location',
  batches: 'Batch',
  physical_items: 'Item',
  work_orders: 'Work order',
  users: 'User',
  api_keys: 'API key',
  qr_codes: 'QR code',
  monitoring_rules: 'Rule',
  event_log: 'Event',
  notification_channels: 'Channel',
  notification_deliveries: 'Delivery',
};

/** The 404 for a PostgreSQL error that is a reference to a record gone meanwhile; undefined for any other error. */
export function vanishedReference(pg: { code?: unknown; detail?: unknown }): NotFoundError | undefined {
  if (pg.code !== FOREIGN_KEY_VIOLATION || typeof pg.detail !== 'string') return undefined;
  const table = MISSING.exec(pg.detail)?.[1];
  if (table === undefined) return undefined;
  return new NotFoundError(`${Object.prototype.hasOwnProperty.call(WHAT, table) ? WHAT[table] : 'Record'} not found.`);
}

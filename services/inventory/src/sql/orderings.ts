/**
 * What each inventory list may be sorted by (`ordering`, docs/api/ordering-and-search.md): API field -> trusted
 * SQL. Every sort here has an index that starts with company_id (migration 0016).
 */
import type { ListOrdering } from '@pi/common';

/** Names sort ignoring case whatever the database collation, then exactly. */
export const PRODUCT_ORDERING: ListOrdering = {
  fields: { name: { sql: ['lower(name)', 'name'] }, sku: { sql: ['lower(sku)', 'sku'] }, created_at: 'created_at' },
  default: 'name',
};

export const LOCATION_ORDERING: ListOrdering = {
  fields: { name: { sql: ['lower(name)', 'name'] }, type: 'type', created_at: 'created_at' },
  // Then by name: records made in one transaction (a company's two system locations) share created_at.
  default: 'created_at,name',
};

export const ITEM_ORDERING: ListOrdering = {
  fields: { serial_number: { sql: ['serial_number'], unique: true }, created_at: 'created_at' },
  default: 'created_at,serial_number',
};

/** Stock lists products: it sorts like the catalog (p. is the product). */
export const STOCK_ORDERING: ListOrdering = {
  fields: { name: { sql: ['lower(p.name)', 'p.name'] }, sku: { sql: ['lower(p.sku)', 'p.sku'] } },
  default: 'name',
  tieBreaker: 'p.id',
};

/**
 * `created_at` sorts by the ledger's server sequence: the order the movements were booked in, unique, and never
 * a client's clock (docs/api/ordering-and-search.md).
 */
export const MOVEMENT_ORDERING: ListOrdering = {
  fields: { created_at: { sql: ['m.seq'], unique: true }, quantity: 'm.quantity', kind: 'm.kind' },
  default: '-created_at',
  tieBreaker: 'm.id',
};

export const BATCH_ORDERING: ListOrdering = {
  fields: { code: { sql: ['lower(b.code)', 'b.code'] }, expiration_date: 'b.expiration_date', created_at: 'b.created_at' },
  default: 'expiration_date,code',
  tieBreaker: 'b.id',
};

export const WORK_ORDER_ORDERING: ListOrdering = {
  fields: { number: { sql: ['number'], unique: true }, status: 'status', due_date: 'due_date', created_at: 'created_at' },
  default: 'created_at,number',
};

/**
 * Locations: physical places (warehouses, stores, shelves, vehicles), optionally nested, and the company's two
 * VIRTUAL system locations that the ledger books additions and subtractions against. System locations are
 * created with the company and cannot be changed.
 */
import { Op } from 'sequelize';
import type { Sequelize, Transaction, WhereOptions } from 'sequelize';
import {
  AuditSnapshot,
  ConflictError,
  Identity,
  Location,
  LocationType,
  OrderTerm,
  PageRequest,
  ValidationError,
  findOwned,
  likePattern,
  pageWindow,
  recordAudit,
  sequelizeOrder,
} from '@pi/common';
import type { InventoryContext } from '../context';
import { LOCATION_ORDERING } from '../sql/orderings';
import { answerOncePerKey, type KeyedAnswer } from '../ledger/idempotency';
import { ledgerContext, type RequestOrigin } from './bookings';

export interface LocationFilters extends PageRequest {
  type?: LocationType;
  is_active?: boolean;
  search?: string;
  ordering?: OrderTerm[];
}

export function listLocations(_ctx: InventoryContext, identity: Identity, filters: LocationFilters) {
  const where: WhereOptions<Location> = { companyId: identity.companyId };
  if (filters.type) Object.assign(where, { type: filters.type });
  if (filters.is_active !== undefined) Object.assign(where, { isActive: filters.is_active });
  if (filters.search) Object.assign(where, { name: { [Op.iLike]: likePattern(filters.search) } });
  return Location.findAndCountAll({ where, order: sequelizeOrder(LOCATION_ORDERING, filters.ordering), ...pageWindow(filters), raw: true });
}

/** Active physical locations, for the widget. */
export function listWidgetLocations(_ctx: InventoryContext, identity: Identity) {
  return Location.findAll({
    where: { companyId: identity.companyId, isActive: true, systemRole: null, type: ['WAREHOUSE', 'STORE', 'SHELF', 'VEHICLE'] },
    order: [
      ['name', 'ASC'],
      ['id', 'ASC'],
    ],
    raw: true,
  });
}

export function getLocation(_ctx: InventoryContext, identity: Identity, id: string) {
  return findOwned(Location, id, identity.companyId, { what: 'Location' });
}

async function checkParent(identity: Identity, parentId: string, transaction: Transaction) {
  const parent = await findOwned(Location, parentId, identity.companyId, { transaction, what: 'Parent location' });
  if (parent.type === 'VIRTUAL') throw new ValidationError({ parent_id: 'must be a physical location' });
  return parent;
}

export interface NewLocation {
  name: string;
  type: LocationType;
  parent_id?: string | null;
}

/** A location's fields as the audit log records them (docs/api/roles-and-audit-log.md). */
export function auditedLocation(location: Location): AuditSnapshot {
  return { name: location.name, type: location.type, parent_id: location.parentId, is_active: location.isActive };
}

/**
 * From the dashboard (a user) or the widget (an API key): the audit log names whichever it was. Names need not
 * be unique, so a retry after an answer that never came carries the first one's Idempotency-Key and answers it
 * again (as `present` shapes it for the route) instead of creating a second location.
 */
export function createLocation<T>(
  ctx: InventoryContext,
  identity: Identity,
  input: NewLocation,
  origin: RequestOrigin,
  present: (location: Location) => T,
): Promise<KeyedAnswer<T>> {
  const { sequelize } = ctx;
  return sequelize.transaction((transaction) =>
    answerOncePerKey(ledgerContext(ctx, identity, origin.requestId), transaction, origin.idempotency, async () => {
      if (input.parent_id) await checkParent(identity, input.parent_id, transaction);
      const location = await Location.create(
        { companyId: identity.companyId, name: input.name, type: input.type, parentId: input.parent_id ?? null, isActive: true },
        { transaction },
      );
      await recordAudit(transaction, identity.companyId, identity, {
        action: 'create',
        resourceType: 'location',
        resourceId: location.id,
        after: auditedLocation(location),
      });
      return present(location);
    }),
  );
}

export interface LocationChanges {
  name?: string;
  parent_id?: string | null;
  is_active?: boolean;
}

export function updateLocation(ctx: InventoryContext, identity: Identity, id: string, changes: LocationChanges, action: 'update' | 'deactivate' = 'update') {
  const { sequelize } = ctx;
  return sequelize.transaction(async (transaction) => {
    if (changes.parent_id) await lockLocationTree(sequelize, identity.companyId, transaction);
    const location = await findOwned(Location, id, identity.companyId, { transaction, lock: true, what: 'Location' });
    if (location.systemRole) throw new ConflictError('system_location', 'System locations cannot be changed.');
    const before = auditedLocation(location);
    if (changes.parent_id) await assertNoCycle(identity, location.id, changes.parent_id, transaction);
    if (changes.is_active === false && location.isActive) await assertEmpty(location.id, transaction);
    if (changes.name !== undefined) location.name = changes.name;
    if (changes.parent_id !== undefined) location.parentId = changes.parent_id;
    if (changes.is_active !== undefined) location.isActive = changes.is_active;
    await location.save({ transaction });
    await recordAudit(transaction, identity.companyId, identity, {
      action,
      resourceType: 'location',
      resourceId: location.id,
      before,
      after: auditedLocation(location),
    });
    return location;
  });
}

/** Stock in a deactivated location would vanish from every list: it must be moved out first. */
async function assertEmpty(locationId: string, transaction: Transaction) {
  const [rows] = await Location.sequelize!.query('SELECT 1 FROM stock_balances WHERE location_id = $1 AND quantity > 0 LIMIT 1', {
    bind: [locationId],
    transaction,
  });
  if (rows.length) throw new ConflictError('location_has_stock', 'This location still holds stock: transfer it out before deactivating.');
}

/** The first of the location tree lock's two keys: every other advisory lock takes one bigint key, a key space of its own. */
const LOCATION_TREE_LOCK = 1;

/**
 * Moves under a new parent take turns within a company, before each locks its location. Each checks for a
 * loop on the tree as committed, so two moves that close one only between them (A under B and B under A, or
 * the two halves of a longer loop) would both pass if they overlapped; and two that locked their own rows
 * first would each wait for the other's row (the parent reference) and deadlock.
 */
async function lockLocationTree(sequelize: Sequelize, companyId: string, transaction: Transaction) {
  await sequelize.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', { bind: [LOCATION_TREE_LOCK, companyId], transaction });
}

/** A location may not become its own ancestor. */
async function assertNoCycle(identity: Identity, id: string, parentId: string, transaction: Transaction) {
  await checkParent(identity, parentId, transaction);
  const [rows] = await Location.sequelize!.query(
    `WITH RECURSIVE ancestors AS (
       SELECT id, parent_id FROM locations WHERE id = $1 AND company_id = $2
       UNION ALL
       SELECT l.id, l.parent_id FROM locations l JOIN ancestors a ON l.id = a.parent_id WHERE l.company_id = $2
     ) CYCLE id SET is_cycle USING path
     SELECT 1 FROM ancestors WHERE id = $3 LIMIT 1`,
    { bind: [parentId, identity.companyId, id], transaction },
  );
  if (rows.length) throw new ValidationError({ parent_id: 'would make the location its own ancestor' });
}

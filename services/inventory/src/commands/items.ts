/**
 * Physical items: serialized units of SERIALIZED products. Creating one books an addition of one unit
 * through the ledger (so stock stays the count of active items); the ledger also moves and retires them.
 * Outside the ledger only a serial number can be corrected.
 */
import { Op } from 'sequelize';
import type { WhereOptions } from 'sequelize';
import { Identity, OrderTerm, PageRequest, PhysicalItem, findOwned, likePattern, pageWindow, rethrowAlreadyExists, sequelizeOrder } from '@pi/common';
import type { InventoryContext } from '../context';
import type { NamedFilters } from '../http/named-filters';
import { sequelizeNamedFilters } from '../sql/named-filters';
import { ITEM_ORDERING } from '../sql/orderings';
import { runBooking } from '../ledger/run-booking';
import { presentItem } from '../presenters/item';
import { presentMovement } from '../presenters/movement';
import { ledgerContext, type BookingAnswer, type RequestOrigin } from './bookings';

export interface ItemFilters extends PageRequest, Omit<NamedFilters, 'batch_code'> {
  product_id?: string;
  location_id?: string;
  is_active: boolean;
  search?: string;
  ordering?: OrderTerm[];
}

export async function listItems(_ctx: InventoryContext, identity: Identity, filters: ItemFilters) {
  const where: WhereOptions<PhysicalItem> = { companyId: identity.companyId, isActive: filters.is_active };
  if (filters.product_id) Object.assign(where, { productId: filters.product_id });
  if (filters.location_id) Object.assign(where, { locationId: filters.location_id });
  if (filters.search) Object.assign(where, { serialNumber: { [Op.iLike]: likePattern(filters.search) } });
  const named = sequelizeNamedFilters(PhysicalItem.sequelize!, identity.companyId, filters, { sku: 'product_id', location_name: 'location_id' });
  if (named.length) Object.assign(where, { [Op.and]: named });
  return PhysicalItem.findAndCountAll({
    where,
    order: sequelizeOrder(ITEM_ORDERING, filters.ordering),
    ...pageWindow(filters),
    raw: true,
  });
}

export function getItem(_ctx: InventoryContext, identity: Identity, id: string) {
  return findOwned(PhysicalItem, id, identity.companyId, { what: 'Item' });
}

export interface NewItem {
  product_id: string;
  location_id: string;
  serial_number: string;
  reason: string;
}

/** `POST /api/v1/items/`: one unit of a SERIALIZED product, booked in (ADD) at a location. */
export async function createItem(ctx: InventoryContext, identity: Identity, input: NewItem, origin: RequestOrigin): Promise<BookingAnswer> {
  const order = { op: 'item', productId: input.product_id, locationId: input.location_id, details: input } as const;
  const outcome = await runBooking(ledgerContext(ctx, identity, origin.requestId), order, 201, origin.idempotency);
  const body = 'booked' in outcome ? { ...presentItem(outcome.booked.item!), movement: presentMovement(outcome.booked.movements[0]) } : outcome.legacyBody;
  return { status: outcome.status, body, replayed: outcome.replayed };
}

/** `PATCH /api/v1/items/{id}/`: correct a serial number (still unique in the company). */
export function renameItem(ctx: InventoryContext, identity: Identity, id: string, serialNumber: string) {
  const { sequelize } = ctx;
  return sequelize.transaction(async (transaction) => {
    const item = await findOwned(PhysicalItem, id, identity.companyId, { transaction, lock: true, what: 'Item' });
    item.serialNumber = serialNumber;
    await item.save({ transaction }).catch(rethrowAlreadyExists('This serial number already exists.', 'serial_number'));
    return item;
  });
}

/**
 * What a booking names, checked before anything is written: the product and locations must belong to the
 * caller's company (else 403 access_denied), exist (404), and be usable (active, physical).
 */
import { Location, ProductModel, findOwned } from '@pi/common';
import type { Identity } from '@pi/common';
import type { Tx } from './context';
import { inactiveLocation, inactiveProduct, virtualLocation } from './errors';

/**
 * The product, share-locked for the booking: bookings run side by side, but a change of profile or
 * decimals, or a delete (which take FOR UPDATE), waits for them, and they for it.
 */
export async function bookableProduct(identity: Identity, productId: string, transaction: Tx): Promise<ProductModel> {
  const product = await findOwned(ProductModel, productId, identity.companyId, { transaction, lock: transaction.LOCK.SHARE, what: 'Product' });
  if (!product.isActive) throw inactiveProduct();
  return product;
}

/**
 * An active physical location of the company; `field` names the request field in errors. In a transaction it
 * is key-share-locked, as the one-statement booking does (migration 0022): a deactivation waits for the
 * booking, and a booking that comes after it reads the location as inactive.
 */
export async function physicalLocation(identity: Identity, locationId: string, field: string, transaction?: Tx): Promise<Location> {
  const lock = transaction ? transaction.LOCK.KEY_SHARE : undefined;
  const location = await findOwned(Location, locationId, identity.companyId, { transaction, lock, what: 'Location' });
  if (location.type === 'VIRTUAL') throw virtualLocation(field);
  if (!location.isActive) throw inactiveLocation(field);
  return location;
}

const systemLocationCache = new Map<string, { inbound: string; outbound: string }>();

/** The company's VIRTUAL Inbound and Outbound locations (created at registration, never changed). */
export async function systemLocations(companyId: string, transaction?: Tx): Promise<{ inbound: string; outbound: string }> {
  const cached = systemLocationCache.get(companyId);
  if (cached) return cached;
  const rows = await Location.findAll({ where: { companyId, type: 'VIRTUAL' }, attributes: ['id', 'systemRole'], raw: true, transaction });
  const inbound = rows.find((r) => r.systemRole === 'INBOUND')?.id;
  const outbound = rows.find((r) => r.systemRole === 'OUTBOUND')?.id;
  if (!inbound || !outbound) throw new Error(`company ${companyId} has no system locations`);
  const found = { inbound, outbound };
  systemLocationCache.set(companyId, found);
  return found;
}

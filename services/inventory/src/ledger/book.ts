/**
 * The four ways stock changes, each in the caller's transaction and each writing ledger rows and balances
 * together: `bookIn` (from the company's Inbound), `bookOut` (to Outbound), `bookCount` (a physical count,
 * booked as the difference) and `transferStock` (between two physical locations). Profiles decide what a
 * booking must name: BATCH a batch, SERIALIZED items (docs/api/stock-and-ledger.md).
 *
 * This is the general path (ledger/general-booking.ts): BATCH and SERIALIZED products book here. STANDARD and
 * DIMENSIONAL ones book in one statement (sql/booking.ts), which follows the same rules; the code below
 * handles them too, so a booking routed here for any profile is still right.
 */
import type { Location, MovementKind, PhysicalItem, ProductModel } from '@pi/common';
import { ValidationError } from '@pi/common';
import { toDecimal } from '../engine/quantity';
import { BalancePart, addToBalance, addToBalances, differenceTo, fefoParts, takeFromBalance, takeFromBalances } from './balances';
import { batchOfProduct, findOrCreateBatch } from './batches';
import type { BookingContext, Tx } from './context';
import { InsufficientStockError, quantityRequired, sameLocation, stockChanged } from './errors';
import { createItems, lockItemsAt, relocateItems, retireItems } from './items';
import { lockStock } from './locks';
import { MovementRow, appendMovement, appendMovements } from './movements';
import { systemLocations } from './targets';
import type { CountRequest, InRequest, OutRequest, TransferRequest } from './types';

export interface Booked {
  movements: MovementRow[];
  items?: Array<{ id: string; serial_number: string }>;
  /** SERIALIZED additions: the item rows created, as the database returned them. */
  createdItems?: PhysicalItem[];
  batch?: { id: string; code: string; expiration_date: string | null };
}

/** SERIALIZED bookings count items: the quantity, when given, must agree. */
function itemCount(product: ProductModel, quantity: number | undefined, listed: string[] | undefined, field: string): number {
  const count = quantity ?? listed?.length;
  if (count === undefined) throw quantityRequired();
  toDecimal(count, 0, 'quantity');
  if (listed && listed.length !== count) throw new ValidationError({ [field]: `must list exactly ${count} entries (one per unit of quantity)` });
  if (product.profile === 'SERIALIZED' && count > 10_000) throw new ValidationError({ quantity: 'at most 10000 serialized units per booking' });
  return count;
}

function requiredQuantity(product: ProductModel, quantity: number | undefined): string {
  if (quantity === undefined) throw quantityRequired();
  return toDecimal(quantity, product.decimals);
}

export async function bookIn(ctx: BookingContext, tx: Tx, product: ProductModel, location: Location, req: InRequest, kind: MovementKind): Promise<Booked> {
  const { inbound } = await systemLocations(ctx.identity.companyId, tx);
  await lockStock(ctx.sequelize, tx, product.id, [location.id]);
  const key = { companyId: ctx.identity.companyId, productId: product.id, locationId: location.id, batchId: null as string | null };
  const base = { productId: product.id, kind, fromLocationId: inbound, toLocationId: location.id, reason: req.reason };

  if (product.profile === 'SERIALIZED') {
    const count = itemCount(product, req.quantity, req.serial_numbers, 'serial_numbers');
    const items = await createItems(ctx, tx, product, location.id, count, req.serial_numbers);
    const quantity = String(count);
    await addToBalance(ctx.sequelize, tx, key, quantity);
    const movement = await appendMovement(ctx, tx, { ...base, quantity, itemIds: items.map((i) => i.id) });
    return { movements: [movement], items: items.map((i) => ({ id: i.id, serial_number: i.serialNumber })), createdItems: items };
  }

  const quantity = requiredQuantity(product, req.quantity);
  if (product.profile === 'BATCH') {
    if (!req.batch_id && !req.batch) throw new ValidationError({ batch_id: 'a BATCH product needs batch_id or batch {code, expiration_date}' });
    const batch = req.batch_id ? await batchOfProduct(ctx, tx, product, req.batch_id) : await findOrCreateBatch(ctx, tx, product, req.batch!);
    await addToBalance(ctx.sequelize, tx, { ...key, batchId: batch.id }, quantity);
    const movement = await appendMovement(ctx, tx, { ...base, quantity, batchId: batch.id });
    return { movements: [movement], batch: { id: batch.id, code: batch.code, expiration_date: batch.expirationDate } };
  }

  await addToBalance(ctx.sequelize, tx, key, quantity);
  return { movements: [await appendMovement(ctx, tx, { ...base, quantity })] };
}

export async function bookOut(ctx: BookingContext, tx: Tx, product: ProductModel, location: Location, req: OutRequest, kind: MovementKind): Promise<Booked> {
  const { outbound } = await systemLocations(ctx.identity.companyId, tx);
  await lockStock(ctx.sequelize, tx, product.id, [location.id]);
  const key = { companyId: ctx.identity.companyId, productId: product.id, locationId: location.id, batchId: null as string | null };
  const base = { productId: product.id, kind, fromLocationId: location.id, toLocationId: outbound, reason: req.reason };

  if (product.profile === 'SERIALIZED') {
    if (!req.item_ids?.length) throw new ValidationError({ item_ids: 'a SERIALIZED product names the items it removes' });
    const count = itemCount(product, req.quantity, req.item_ids, 'item_ids');
    const items = await lockItemsAt(ctx, tx, product, req.item_ids, location.id);
    await retireItems(tx, items);
    const quantity = String(count);
    await takeFromBalance(ctx.sequelize, tx, key, quantity);
    return { movements: [await appendMovement(ctx, tx, { ...base, quantity, itemIds: items.map((i) => i.id) })] };
  }

  const quantity = requiredQuantity(product, req.quantity);
  if (product.profile === 'BATCH') {
    if (req.batch_id) {
      const batch = await batchOfProduct(ctx, tx, product, req.batch_id);
      await takeFromBalance(ctx.sequelize, tx, { ...key, batchId: batch.id }, quantity);
      return { movements: [await appendMovement(ctx, tx, { ...base, quantity, batchId: batch.id })] };
    }
    const plan = await planFefo(ctx, tx, product, location.id, quantity);
    await takeFromBalances(ctx.sequelize, tx, key, plan);
    return { movements: await appendMovements(ctx, tx, base, plan) };
  }

  await takeFromBalance(ctx.sequelize, tx, key, quantity);
  return { movements: [await appendMovement(ctx, tx, { ...base, quantity })] };
}

/**
 * Which batches cover `quantity` at a location, earliest expiry first. Runs under the stock lock, so the
 * balances it reads cannot change before they are taken.
 */
async function planFefo(ctx: BookingContext, tx: Tx, product: ProductModel, locationId: string, quantity: string) {
  const parts = await fefoParts(ctx.sequelize, tx, product.id, locationId, quantity);
  const available = parts[0]?.total ?? '0';
  if (Number(available) < Number(quantity)) throw new InsufficientStockError(available, quantity, locationId);
  return parts.map((p) => ({ batchId: p.batch_id, quantity: p.take }));
}

/**
 * A physical count: books the difference to the current balance as one ADJUST movement (none when equal).
 * With `expected_quantity` it is a compare-and-swap: 409 stock_changed if the stock moved since counting.
 */
export async function bookCount(ctx: BookingContext, tx: Tx, product: ProductModel, location: Location, req: CountRequest): Promise<Booked> {
  if (product.profile === 'SERIALIZED') throw new ValidationError({ operation: "'set' is not available for SERIALIZED products: add or subtract named items" });
  const counted = toDecimal(req.quantity, product.decimals);
  const expected = req.expected_quantity === undefined ? undefined : toDecimal(req.expected_quantity, product.decimals, 'expected_quantity');
  let batchId: string | null = null;
  if (product.profile === 'BATCH') {
    if (!req.batch_id) throw new ValidationError({ batch_id: 'counting a BATCH product names the batch' });
    batchId = (await batchOfProduct(ctx, tx, product, req.batch_id)).id;
  }
  await lockStock(ctx.sequelize, tx, product.id, [location.id]);
  const { current, diff } = await differenceTo(ctx.sequelize, tx, { productId: product.id, locationId: location.id, batchId }, counted);
  if (expected !== undefined && Number(current) !== Number(expected)) {
    throw stockChanged(expected, current);
  }
  if (Number(diff) === 0) return { movements: [] };
  const { inbound, outbound } = await systemLocations(ctx.identity.companyId, tx);
  const key = { companyId: ctx.identity.companyId, productId: product.id, locationId: location.id, batchId };
  const magnitude = diff.replace(/^-/, '');
  const base = { productId: product.id, kind: 'ADJUST' as const, quantity: magnitude, batchId, reason: req.reason };
  if (diff.startsWith('-')) {
    await takeFromBalance(ctx.sequelize, tx, key, magnitude);
    return { movements: [await appendMovement(ctx, tx, { ...base, fromLocationId: location.id, toLocationId: outbound })] };
  }
  await addToBalance(ctx.sequelize, tx, key, magnitude);
  return { movements: [await appendMovement(ctx, tx, { ...base, fromLocationId: inbound, toLocationId: location.id })] };
}

/** Moves stock between two distinct physical locations, atomically; both stock locks are taken in order. */
export async function transferStock(ctx: BookingContext, tx: Tx, product: ProductModel, from: Location, to: Location, req: TransferRequest): Promise<Booked> {
  if (from.id === to.id) throw sameLocation();
  await lockStock(ctx.sequelize, tx, product.id, [from.id, to.id]);
  const key = (locationId: string, batchId: string | null) => ({ companyId: ctx.identity.companyId, productId: product.id, locationId, batchId });
  const base = { productId: product.id, kind: 'TRANSFER' as const, fromLocationId: from.id, toLocationId: to.id, reason: req.reason };

  if (product.profile === 'SERIALIZED') {
    if (!req.item_ids?.length) throw new ValidationError({ item_ids: 'a SERIALIZED product names the items it transfers' });
    const count = itemCount(product, req.quantity, req.item_ids, 'item_ids');
    const items = await lockItemsAt(ctx, tx, product, req.item_ids, from.id);
    await relocateItems(tx, items, to.id);
    const quantity = String(count);
    await takeFromBalance(ctx.sequelize, tx, key(from.id, null), quantity);
    await addToBalance(ctx.sequelize, tx, key(to.id, null), quantity);
    return { movements: [await appendMovement(ctx, tx, { ...base, quantity, itemIds: items.map((i) => i.id) })] };
  }

  const quantity = requiredQuantity(product, req.quantity);
  let parts: BalancePart[] = [{ batchId: null, quantity }];
  if (product.profile === 'BATCH') {
    parts = req.batch_id
      ? [{ batchId: (await batchOfProduct(ctx, tx, product, req.batch_id)).id, quantity }]
      : await planFefo(ctx, tx, product, from.id, quantity);
  }
  const at = (locationId: string) => ({ companyId: ctx.identity.companyId, productId: product.id, locationId });
  await takeFromBalances(ctx.sequelize, tx, at(from.id), parts);
  await addToBalances(ctx.sequelize, tx, at(to.id), parts);
  return { movements: await appendMovements(ctx, tx, base, parts) };
}

/**
 * The general path of a booking: a transaction of several statements through Sequelize, with the
 * Idempotency-Key claimed inside it. BATCH and SERIALIZED products book here (batches found or created,
 * FEFO across batches, items created, retired or moved); it books any profile by the same rules as the
 * one-statement path (sql/booking.ts), which STANDARD and DIMENSIONAL products take. Item creation
 * (`POST /api/v1/items/`, SERIALIZED only) books here too.
 */
import { ValidationError, type ProductModel } from '@pi/common';
import { stockTotals } from './balances';
import { Booked, bookCount, bookIn, bookOut, transferStock } from './book';
import type { BookingContext, Tx } from './context';
import { claimKey, rememberBooking } from './idempotency';
import { bookableProduct, physicalLocation, systemLocations } from './targets';
import type { BookedStock, BookingOrder, BookingOutcome, IdempotencyClaim } from './types';

/** The booking as data, with the product's new total and the stock now at `locationIds`. */
async function bookedStock(
  ctx: BookingContext,
  tx: Tx,
  product: ProductModel,
  op: BookedStock['op'],
  booked: Booked,
  locationIds: string[],
): Promise<BookedStock> {
  const totals = await stockTotals(ctx.sequelize, tx, product.id, locationIds);
  return {
    op,
    product_id: product.id,
    unit: product.unit,
    decimals: product.decimals,
    movements: booked.movements,
    total: totals.total,
    locations: locationIds.map((id, i) => ({ id, quantity: totals.at[i] })),
    ...(booked.items ? { items: booked.items } : {}),
    ...(booked.batch ? { batch: booked.batch } : {}),
  };
}

async function book(ctx: BookingContext, tx: Tx, order: BookingOrder): Promise<BookedStock> {
  const { identity } = ctx;
  const product = await bookableProduct(identity, order.productId, tx);
  switch (order.op) {
    case 'in': {
      const location = await physicalLocation(identity, order.locationId, 'location_id', tx);
      return bookedStock(ctx, tx, product, 'in', await bookIn(ctx, tx, product, location, order.details, order.kind), [location.id]);
    }
    case 'out': {
      const location = await physicalLocation(identity, order.locationId, 'location_id', tx);
      return bookedStock(ctx, tx, product, 'out', await bookOut(ctx, tx, product, location, order.details, order.kind), [location.id]);
    }
    case 'count': {
      const location = await physicalLocation(identity, order.locationId, 'location_id', tx);
      return bookedStock(ctx, tx, product, 'count', await bookCount(ctx, tx, product, location, order.details), [location.id]);
    }
    case 'core': {
      const { inbound, outbound } = await systemLocations(identity.companyId, tx);
      if (order.fromId.toLowerCase() === inbound) {
        const to = await physicalLocation(identity, order.toId, 'to_location_id', tx);
        return bookedStock(ctx, tx, product, 'in', await bookIn(ctx, tx, product, to, order.details, 'ADD'), [to.id]);
      }
      if (order.toId.toLowerCase() === outbound) {
        const from = await physicalLocation(identity, order.fromId, 'from_location_id', tx);
        return bookedStock(ctx, tx, product, 'out', await bookOut(ctx, tx, product, from, order.details, 'SUBTRACT'), [from.id]);
      }
      return transfer(ctx, tx, product, order.fromId, order.toId, order.details);
    }
    case 'transfer':
      return transfer(ctx, tx, product, order.fromId, order.toId, order.details);
    case 'item': {
      if (product.profile !== 'SERIALIZED') throw new ValidationError({ product_id: 'items belong to SERIALIZED products' });
      const location = await physicalLocation(identity, order.locationId, 'location_id', tx);
      const details = { quantity: 1, serial_numbers: [order.details.serial_number], reason: order.details.reason };
      const booked = await bookIn(ctx, tx, product, location, details, 'ADD');
      const { id, productId, serialNumber, locationId, isActive, retiredAt, createdAt } = booked.createdItems![0];
      const item = { id, productId, serialNumber, locationId, isActive, retiredAt, createdAt };
      return { ...(await bookedStock(ctx, tx, product, 'in', booked, [location.id])), item };
    }
  }
}

async function transfer(ctx: BookingContext, tx: Tx, product: ProductModel, fromId: string, toId: string, details: Parameters<typeof transferStock>[5]) {
  const from = await physicalLocation(ctx.identity, fromId, 'from_location_id', tx);
  const to = await physicalLocation(ctx.identity, toId, 'to_location_id', tx);
  return bookedStock(ctx, tx, product, 'transfer', await transferStock(ctx, tx, product, from, to, details), [from.id, to.id]);
}

/** Books `order` in a transaction of its own, once per idempotency key. */
export function bookInTransaction(ctx: BookingContext, order: BookingOrder, status: number, idem?: IdempotencyClaim): Promise<BookingOutcome> {
  return ctx.sequelize.transaction(async (tx) => {
    const earlier = idem ? await claimKey(ctx, tx, idem) : undefined;
    if (earlier) return earlier;
    const booked = await book(ctx, tx, order);
    if (idem) await rememberBooking(ctx, tx, idem, status, booked);
    return { replayed: false, status, booked };
  });
}

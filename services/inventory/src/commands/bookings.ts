/**
 * Booking requests as the API receives them, turned into ledger commands inside one idempotent
 * transaction, and answered with the new stock (read in the same transaction).
 */
import type { ProductModel } from '@pi/common';
import { stockDisplay } from '../engine/quantity';
import { stockTotals } from '../ledger/balances';
import { Booked, CountRequest, InRequest, OutRequest, TransferRequest, bookCount, bookIn, bookOut, transferStock } from '../ledger/book';
import type { BookingContext, Tx } from '../ledger/context';
import { BookingAnswer, IdempotencyClaim, runBooking } from '../ledger/run-booking';
import { bookableProduct, physicalLocation, systemLocations } from '../ledger/targets';
import { presentMovement } from '../presenters/movement';

export type TransactionRequest = InRequest & OutRequest & CountRequest & { operation: 'add' | 'subtract' | 'set'; location_id: string };

function bookedFields(booked: Booked) {
  return {
    movements: booked.movements.map(presentMovement),
    ...(booked.items ? { items: booked.items } : {}),
    ...(booked.batch ? { batch: booked.batch } : {}),
  };
}

async function displays(ctx: BookingContext, tx: Tx, product: ProductModel, locationIds: string[]) {
  const totals = await stockTotals(ctx.sequelize, tx, product.id, locationIds);
  const show = (q: string) => stockDisplay(q, product.decimals, product.unit);
  return { total: show(totals.total), at: totals.at.map(show) };
}

/** `POST /api/v1/widget/{id}/transaction/`: add, subtract, or set (count) stock at one location. */
export function bookTransaction(ctx: BookingContext, productId: string, req: TransactionRequest, idem?: IdempotencyClaim): Promise<BookingAnswer> {
  return runBooking(ctx, idem, async (tx) => {
    const product = await bookableProduct(ctx.identity, productId, tx);
    const location = await physicalLocation(ctx.identity, req.location_id, 'location_id', tx);
    const booked =
      req.operation === 'add'
        ? await bookIn(ctx, tx, product, location, req, 'ADD')
        : req.operation === 'subtract'
          ? await bookOut(ctx, tx, product, location, req, 'SUBTRACT')
          : await bookCount(ctx, tx, product, location, req);
    const shown = await displays(ctx, tx, product, [location.id]);
    return {
      status: 200,
      body: {
        success: true,
        operation: req.operation,
        product_id: product.id,
        location_id: location.id,
        new_stock_display: shown.total,
        location_stock_display: shown.at[0],
        ...bookedFields(booked),
      },
    };
  });
}

export type SignedMoveRequest = Omit<InRequest & OutRequest, 'quantity'> & { product_id: string; location_id: string; quantity: number };

/** `POST /api/v1/widget/move/`: the sign of `quantity` is the direction (positive inbound, negative outbound). */
export function bookSignedMove(ctx: BookingContext, req: SignedMoveRequest, idem?: IdempotencyClaim): Promise<BookingAnswer> {
  return runBooking(ctx, idem, async (tx) => {
    const product = await bookableProduct(ctx.identity, req.product_id, tx);
    const location = await physicalLocation(ctx.identity, req.location_id, 'location_id', tx);
    const inbound = req.quantity > 0;
    const amount = { ...req, quantity: Math.abs(req.quantity) };
    const booked = inbound ? await bookIn(ctx, tx, product, location, amount, 'MOVE_IN') : await bookOut(ctx, tx, product, location, amount, 'MOVE_OUT');
    const shown = await displays(ctx, tx, product, [location.id]);
    return {
      status: 200,
      body: {
        success: true,
        direction: inbound ? 'in' : 'out',
        product_id: product.id,
        location_id: location.id,
        new_stock_display: shown.total,
        location_stock_display: shown.at[0],
        ...bookedFields(booked),
      },
    };
  });
}

export type TransferStockRequest = TransferRequest & { product_id: string; from_location_id: string; to_location_id: string };

/** `POST /api/v1/widget/transfer/`: between two distinct active physical locations. */
export function bookTransfer(ctx: BookingContext, req: TransferStockRequest, idem?: IdempotencyClaim): Promise<BookingAnswer> {
  return runBooking(ctx, idem, async (tx) => {
    const product = await bookableProduct(ctx.identity, req.product_id, tx);
    const from = await physicalLocation(ctx.identity, req.from_location_id, 'from_location_id', tx);
    const to = await physicalLocation(ctx.identity, req.to_location_id, 'to_location_id', tx);
    const booked = await transferStock(ctx, tx, product, from, to, req);
    const shown = await displays(ctx, tx, product, [from.id, to.id]);
    return {
      status: 200,
      body: {
        success: true,
        product_id: product.id,
        from_location_id: from.id,
        to_location_id: to.id,
        new_stock_display: shown.total,
        from_stock_display: shown.at[0],
        to_stock_display: shown.at[1],
        ...bookedFields(booked),
      },
    };
  });
}

export type CoreMovementRequest = InRequest & OutRequest & { product_id: string; from_location_id: string; to_location_id: string };

/**
 * `POST /api/v1/movements/`: a movement between two locations. From the company's Inbound it is an
 * addition, to its Outbound a subtraction, between two physical locations a transfer.
 */
export function bookCoreMovement(ctx: BookingContext, req: CoreMovementRequest, idem?: IdempotencyClaim): Promise<BookingAnswer> {
  return runBooking(ctx, idem, async (tx) => {
    const product = await bookableProduct(ctx.identity, req.product_id, tx);
    const { inbound, outbound } = await systemLocations(ctx.identity.companyId, tx);
    let booked: Booked;
    if (req.from_location_id === inbound) {
      const to = await physicalLocation(ctx.identity, req.to_location_id, 'to_location_id', tx);
      booked = await bookIn(ctx, tx, product, to, req, 'ADD');
    } else if (req.to_location_id === outbound) {
      const from = await physicalLocation(ctx.identity, req.from_location_id, 'from_location_id', tx);
      booked = await bookOut(ctx, tx, product, from, req, 'SUBTRACT');
    } else {
      const from = await physicalLocation(ctx.identity, req.from_location_id, 'from_location_id', tx);
      const to = await physicalLocation(ctx.identity, req.to_location_id, 'to_location_id', tx);
      booked = await transferStock(ctx, tx, product, from, to, req);
    }
    // The core answer shows the total only.
    const shown = await displays(ctx, tx, product, []);
    return { status: 201, body: { new_stock_display: shown.total, ...bookedFields(booked) } };
  });
}

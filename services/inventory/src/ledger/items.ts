/**
 * Serialized items. Additions create them (serial numbers given or generated), subtractions retire named
 * ones, transfers move named ones. Items are locked before they change, so one item is never booked twice.
 */
import { randomBytes } from 'node:crypto';
import { Op, UniqueConstraintError } from 'sequelize';
import { AccessDeniedError, ConflictError, NotFoundError, PhysicalItem, ProductModel, ValidationError } from '@pi/common';
import type { BookingContext, Tx } from './context';

function generatedSerial(product: ProductModel): string {
  return `${product.sku.slice(0, 40)}-${randomBytes(6).toString('hex').toUpperCase()}`;
}

/** `count` new items at a location: with `serialNumbers` (one per item, as bookIn checked) or generated ones. */
export async function createItems(
  ctx: BookingContext,
  tx: Tx,
  product: ProductModel,
  locationId: string,
  count: number,
  serialNumbers?: string[],
): Promise<PhysicalItem[]> {
  const serials = serialNumbers ?? Array.from({ length: count }, () => generatedSerial(product));
  try {
    return await PhysicalItem.bulkCreate(
      serials.map((serialNumber) => ({ companyId: ctx.identity.companyId, productId: product.id, serialNumber, locationId, isActive: true })),
      { transaction: tx, returning: true },
    );
  } catch (err) {
    if (err instanceof UniqueConstraintError) {
      const taken = await PhysicalItem.findAll({
        where: { companyId: ctx.identity.companyId, serialNumber: serials },
        attributes: ['serialNumber'],
        raw: true,
      });
      throw new ConflictError('already_exists', 'Some serial numbers already exist.', {
        serial_numbers: `already exist: ${taken.map((t) => t.serialNumber).join(', ') || 'one of them'}`,
      });
    }
    throw err;
  }
}

/** The named items, locked, checked to be this company's, this product's, active and at `locationId`. */
export async function lockItemsAt(ctx: BookingContext, tx: Tx, product: ProductModel, itemIds: string[], locationId: string): Promise<PhysicalItem[]> {
  const items = await PhysicalItem.findAll({ where: { id: { [Op.in]: itemIds } }, transaction: tx, lock: tx.LOCK.UPDATE, order: [['id', 'ASC']] });
  if (items.some((i) => i.companyId !== ctx.identity.companyId)) throw new AccessDeniedError();
  if (items.length !== itemIds.length) throw new NotFoundError('Item not found.');
  const problems = items.filter((i) => i.productId !== product.id);
  if (problems.length) throw new ValidationError({ item_ids: `items of another product: ${problems.map((i) => i.id).join(', ')}` });
  const unavailable = items.filter((i) => !i.isActive || i.locationId !== locationId);
  if (unavailable.length) {
    throw new ConflictError('item_unavailable', 'Some items are not in stock at this location.', {
      item_ids: unavailable.map((i) => i.id),
      location_id: locationId,
    });
  }
  return items;
}

export async function retireItems(tx: Tx, items: PhysicalItem[]): Promise<void> {
  await PhysicalItem.update({ isActive: false, retiredAt: new Date() }, { where: { id: items.map((i) => i.id) }, transaction: tx });
}

export async function relocateItems(tx: Tx, items: PhysicalItem[], locationId: string): Promise<void> {
  await PhysicalItem.update({ locationId }, { where: { id: items.map((i) => i.id) }, transaction: tx });
}

import Joi from 'joi';
import type { PhysicalItem } from '@pi/common';
import { movementSchema } from './movement';
import { timestamp, uuid } from './schemas';

/** An item row; its timestamps may be ISO text (an item kept with an idempotent booking, read back). */
type ItemRow = Pick<PhysicalItem, 'id' | 'productId' | 'serialNumber' | 'locationId' | 'isActive'> & {
  retiredAt: Date | string | null;
  createdAt?: Date | string;
};

/** A physical item on core endpoints. */
export function presentItem(i: ItemRow) {
  return {
    id: i.id,
    product_id: i.productId,
    serial_number: i.serialNumber,
    location_id: i.locationId,
    is_active: i.isActive,
    retired_at: i.retiredAt,
    created_at: i.createdAt ?? null,
  };
}

/** The widget's active items of a product, with the name of the location holding each. */
export function presentWidgetItem(i: { id: string; serial_number: string; location_id: string; location_name: string }) {
  return { id: i.id, serial_number: i.serial_number, location_id: i.location_id, location_name: i.location_name };
}

/** The fields of `presentItem`, which the export's item rows also have (routes/export/responses.ts). */
export const itemFields = {
  id: uuid.required(),
  product_id: uuid.required(),
  serial_number: Joi.string().required(),
  location_id: uuid.required(),
  is_active: Joi.boolean().required(),
  retired_at: timestamp.allow(null).required(),
  created_at: timestamp.required(),
};

/** The answer schema of `presentItem` (OpenAPI). */
export const itemSchema = Joi.object(itemFields).id('Item');

/** `POST /api/v1/items/`: the item and the movement that booked it in. */
export const createdItemSchema = Joi.object({ ...itemFields, movement: movementSchema.required() }).id('CreatedItem');

/** The answer schema of `presentWidgetItem` (OpenAPI). */
export const widgetItemSchema = Joi.object({
  id: uuid.required(),
  serial_number: Joi.string().required(),
  location_id: uuid.required(),
  location_name: Joi.string().required(),
}).id('WidgetItem');

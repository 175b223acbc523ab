import type { PhysicalItem } from '@pi/common';

type ItemRow = Pick<PhysicalItem, 'id' | 'productId' | 'serialNumber' | 'locationId' | 'isActive' | 'retiredAt'> & { createdAt?: Date };

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

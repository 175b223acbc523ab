/**
 * Physical items: serialized units of SERIALIZED products. The ledger creates them (additions) and retires
 * them (subtractions); here they are only read.
 */
import type { WhereOptions } from 'sequelize';
import { Identity, Location, PageRequest, PhysicalItem, ProductModel, findOwned, pageWindow } from '@pi/common';

export interface ItemFilters extends PageRequest {
  product_id?: string;
  location_id?: string;
  is_active: boolean;
}

export async function listItems(identity: Identity, filters: ItemFilters) {
  if (filters.product_id) await findOwned(ProductModel, filters.product_id, identity.companyId, { what: 'Product' });
  if (filters.location_id) await findOwned(Location, filters.location_id, identity.companyId, { what: 'Location' });
  const where: WhereOptions<PhysicalItem> = { companyId: identity.companyId, isActive: filters.is_active };
  if (filters.product_id) Object.assign(where, { productId: filters.product_id });
  if (filters.location_id) Object.assign(where, { locationId: filters.location_id });
  return PhysicalItem.findAndCountAll({
    where,
    order: [['createdAt', 'ASC'], ['serialNumber', 'ASC'], ['id', 'ASC']],
    ...pageWindow(filters),
    raw: true,
  });
}

export function getItem(identity: Identity, id: string) {
  return findOwned(PhysicalItem, id, identity.companyId, { what: 'Item' });
}

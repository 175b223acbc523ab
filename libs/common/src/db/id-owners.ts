/** The owner lookups of the records list filters name, shared by the services whose lists filter by them. */
import { Batch, EventLogEntry, Location, NotificationChannel, PhysicalItem, ProductModel, WorkOrder } from './models';
import { IdOwner, ownerOfRow } from './ownership';

export const ID_OWNERS = {
  product: ownerOfRow(ProductModel, 'Product'),
  location: ownerOfRow(Location, 'Location'),
  batch: ownerOfRow(Batch, 'Batch'),
  item: ownerOfRow(PhysicalItem, 'Item'),
  workOrder: ownerOfRow(WorkOrder, 'Work order'),
  channel: ownerOfRow(NotificationChannel, 'Channel'),
  event: ownerOfRow(EventLogEntry, 'Event'),
} satisfies Record<string, IdOwner>;

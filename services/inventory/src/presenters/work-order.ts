import type { WorkOrder } from '@pi/common';
import { toNumber } from '../engine/quantity';

type WorkOrderRow = Pick<WorkOrder, 'id' | 'number' | 'title' | 'status' | 'productId' | 'quantity' | 'dueDate'> & {
  createdAt?: Date;
  updatedAt?: Date;
};

const quantityOf = (w: WorkOrderRow) => (w.quantity === null || w.quantity === undefined ? null : toNumber(w.quantity));

/** The widget's open work orders: the record without audit fields. */
export function presentWidgetWorkOrder(w: WorkOrderRow) {
  return {
    id: w.id,
    number: w.number,
    title: w.title,
    status: w.status,
    product_id: w.productId,
    quantity: quantityOf(w),
    due_date: w.dueDate,
  };
}

/** A work order on core endpoints: the widget's fields and when it was created and changed. */
export function presentWorkOrder(w: WorkOrderRow) {
  return { ...presentWidgetWorkOrder(w), created_at: w.createdAt ?? null, updated_at: w.updatedAt ?? null };
}

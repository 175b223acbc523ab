import type { WorkOrder } from '@pi/common';
import { toNumber } from '../engine/quantity';

type WorkOrderRow = Pick<WorkOrder, 'id' | 'number' | 'title' | 'status' | 'productId' | 'quantity' | 'dueDate'> & {
  createdAt?: Date;
  updatedAt?: Date;
};

const quantityOf = (w: WorkOrderRow) => (w.quantity === null || w.quantity === undefined ? null : toNumber(w.quantity));

/** A work order on core endpoints. */
export function presentWorkOrder(w: WorkOrderRow) {
  return {
    id: w.id,
    number: w.number,
    title: w.title,
    status: w.status,
    product_id: w.productId,
    quantity: quantityOf(w),
    due_date: w.dueDate,
    created_at: w.createdAt ?? null,
    updated_at: w.updatedAt ?? null,
  };
}

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

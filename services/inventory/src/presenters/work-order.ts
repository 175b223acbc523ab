import Joi from 'joi';
import { WORK_ORDER_STATUSES, type WorkOrder } from '@pi/common';
import { toNumber } from '../engine/quantity';
import { calendarDay, quantitySchema, timestamp, uuid } from './schemas';

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

const widgetWorkOrderFields = {
  id: uuid.required(),
  number: Joi.string().required(),
  title: Joi.string().required(),
  status: Joi.string()
    .valid(...WORK_ORDER_STATUSES)
    .required(),
  product_id: uuid.allow(null).required(),
  quantity: quantitySchema.allow(null).required(),
  due_date: calendarDay.allow(null).required(),
};

/** The answer schema of `presentWidgetWorkOrder` (OpenAPI). */
export const widgetWorkOrderSchema = Joi.object(widgetWorkOrderFields).id('WidgetWorkOrder');

/** The fields of `presentWorkOrder`, which the export's work order rows also have (routes/export/responses.ts). */
export const workOrderFields = { ...widgetWorkOrderFields, created_at: timestamp.required(), updated_at: timestamp.required() };

/** The answer schema of `presentWorkOrder` (OpenAPI). */
export const workOrderSchema = Joi.object(workOrderFields).id('WorkOrder');

import Joi from 'joi';
import { calendarDate } from '../../http/calendar-date';
import { WORK_ORDER_STATUSES, orderingQuery, schemas, searchQuery } from '@pi/common';
import { WORK_ORDER_ORDERING } from '../../sql/orderings';
import { positiveQuantity } from '../../engine/quantity';

const number = Joi.string().trim().min(1).max(50);
const title = Joi.string().trim().min(1).max(200);
const status = Joi.string().valid(...WORK_ORDER_STATUSES);

export const createWorkOrderBody = Joi.object({
  number: number.description('Unique in the company. Absent: the next generated number, `WO-0001`, `WO-0002`, … (docs/api/catalog-and-records.md).'),
  title: title.required(),
  status: status.default('OPEN'),
  product_id: schemas.uuid.allow(null),
  quantity: positiveQuantity.allow(null),
  due_date: calendarDate.allow(null),
});

export const updateWorkOrderBody = Joi.object({
  number,
  title,
  status,
  product_id: schemas.uuid.allow(null),
  quantity: positiveQuantity.allow(null),
  due_date: calendarDate.allow(null),
}).min(1);

export const listWorkOrdersQuery = Joi.object({
  ...schemas.pagination,
  status,
  product_id: schemas.uuid,
  search: searchQuery('the number or the title'),
  ordering: orderingQuery(WORK_ORDER_ORDERING),
});

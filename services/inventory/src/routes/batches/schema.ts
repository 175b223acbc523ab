import Joi from 'joi';
import { orderingQuery, schemas, searchQuery } from '@pi/common';
import { BATCH_ORDERING } from '../../sql/orderings';
import { namedFilterSchemas } from '../../http/named-filters';
import { calendarDate } from '../../http/calendar-date';

const code = Joi.string().trim().min(1).max(100);

export const createBatchBody = Joi.object({
  product_id: schemas.uuid.required(),
  code: code.required(),
  expiration_date: calendarDate.allow(null),
});

export const updateBatchBody = Joi.object({
  code,
  expiration_date: calendarDate.allow(null),
}).min(1);

export const listBatchesQuery = Joi.object({
  ...schemas.pagination,
  product_id: schemas.uuid,
  has_stock: Joi.boolean(),
  expires_before: calendarDate,
  sku: namedFilterSchemas.sku,
  batch_code: namedFilterSchemas.batch_code,
  search: searchQuery('the batch code'),
  ordering: orderingQuery(BATCH_ORDERING),
});

import Joi from 'joi';
import { orderingQuery, schemas, searchQuery } from '@pi/common';
import { ITEM_ORDERING } from '../../sql/orderings';
import { namedFilterSchemas } from '../../http/named-filters';

export const listItemsQuery = Joi.object({
  ...schemas.pagination,
  product_id: schemas.uuid,
  location_id: schemas.uuid,
  is_active: Joi.boolean().default(true),
  sku: namedFilterSchemas.sku,
  location_name: namedFilterSchemas.location_name,
  search: searchQuery('the serial number'),
  ordering: orderingQuery(ITEM_ORDERING),
});

const serialNumber = Joi.string().trim().min(1).max(100);

export const createItemBody = Joi.object({
  product_id: schemas.uuid.required(),
  location_id: schemas.uuid.required(),
  serial_number: serialNumber.required(),
  reason: Joi.string().max(500).allow('').default(''),
});

export const updateItemBody = Joi.object({ serial_number: serialNumber.required() });

import Joi from 'joi';
import { schemas } from '@pi/common';

export const listItemsQuery = Joi.object({
  ...schemas.pagination,
  product_id: schemas.uuid,
  location_id: schemas.uuid,
  is_active: Joi.boolean().default(true),
});

const serialNumber = Joi.string().trim().min(1).max(100);

export const createItemBody = Joi.object({
  product_id: schemas.uuid.required(),
  location_id: schemas.uuid.required(),
  serial_number: serialNumber.required(),
  reason: Joi.string().max(500).allow('').default(''),
});

export const updateItemBody = Joi.object({ serial_number: serialNumber.required() });

import Joi from 'joi';
import { schemas } from '@pi/common';

export const listItemsQuery = Joi.object({
  ...schemas.pagination,
  product_id: schemas.uuid,
  location_id: schemas.uuid,
  is_active: Joi.boolean().default(true),
});

import Joi from 'joi';
import { schemas } from '@pi/common';

export const stockQuery = Joi.object({
  ...schemas.pagination,
  product_id: schemas.uuid,
  location_id: schemas.uuid.description('Totals then count this location only.'),
});

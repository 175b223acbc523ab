import Joi from 'joi';
import { MOVEMENT_KINDS, schemas } from '@pi/common';

export const listMovementsQuery = Joi.object({
  ...schemas.pagination,
  product_id: schemas.uuid,
  location_id: schemas.uuid.description('Movements from or to this location.'),
  batch_id: schemas.uuid,
  kind: Joi.string().valid(...MOVEMENT_KINDS),
  created_after: schemas.timestamp,
  created_before: schemas.timestamp,
});

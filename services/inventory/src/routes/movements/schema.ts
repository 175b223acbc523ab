import Joi from 'joi';
import { MOVEMENT_KINDS, orderingQuery, schemas, searchQuery } from '@pi/common';
import { MOVEMENT_ORDERING } from '../../sql/orderings';
import { namedFilterSchemas } from '../../http/named-filters';

/** The list's filters and sort (the spreadsheet export takes them too). */
export const movementFilterKeys = {
  product_id: schemas.uuid,
  location_id: schemas.uuid.description('Movements from or to this location.'),
  batch_id: schemas.uuid,
  kind: Joi.string().valid(...MOVEMENT_KINDS),
  created_after: schemas.timestamp,
  created_before: schemas.timestamp,
  ...namedFilterSchemas,
  search: searchQuery('the reason, or of the SKU or name of the product'),
  ordering: orderingQuery(MOVEMENT_ORDERING),
};

export const listMovementsQuery = Joi.object({ ...schemas.pagination, ...movementFilterKeys });

import Joi from 'joi';
import { LOCATION_TYPES, PHYSICAL_LOCATION_TYPES, orderingQuery, schemas, searchQuery } from '@pi/common';
import { LOCATION_ORDERING } from '../../sql/orderings';

const name = Joi.string().trim().min(1).max(200);

export const createLocationBody = Joi.object({
  name: name.required(),
  type: Joi.string()
    .valid(...PHYSICAL_LOCATION_TYPES)
    .required(),
  parent_id: schemas.uuid.allow(null),
});

export const updateLocationBody = Joi.object({
  name,
  parent_id: schemas.uuid.allow(null),
  is_active: Joi.boolean(),
}).min(1);

export const listLocationsQuery = Joi.object({
  ...schemas.pagination,
  type: Joi.string().valid(...LOCATION_TYPES),
  is_active: Joi.boolean(),
  search: searchQuery('the name'),
  ordering: orderingQuery(LOCATION_ORDERING),
});

export const importLocationsQuery = Joi.object({
  dry_run: Joi.boolean().default(false).description('Check every row and write nothing.'),
});

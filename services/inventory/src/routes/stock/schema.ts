import Joi from 'joi';
import { orderingQuery, schemas, searchQuery } from '@pi/common';
import { STOCK_ORDERING } from '../../sql/orderings';
import { namedFilterSchemas } from '../../http/named-filters';

export const stockQuery = Joi.object({
  ...schemas.pagination,
  product_id: schemas.uuid,
  location_id: schemas.uuid.description('Totals then count this location only.'),
  sku: namedFilterSchemas.sku,
  location_name: namedFilterSchemas.location_name.description('Totals then count the location(s) with this exact name, ignoring case.'),
  below_min: Joi.boolean().description(
    '`true`: only products whose `engine_config.min_stock` is set and whose total (at `location_id` / `location_name` when given) is below it; `false`: the others.',
  ),
  search: searchQuery('the SKU or the name of the product'),
  ordering: orderingQuery(STOCK_ORDERING),
});

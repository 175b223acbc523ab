import Joi from 'joi';
import { orderingQuery, schemas, searchQuery } from '@pi/common';
import { STOCK_ORDERING } from '../../sql/orderings';
import { namedFilterSchemas } from '../../http/named-filters';

/** The list's filters (the spreadsheet export takes them too). */
export const stockFilterKeys = {
  product_id: schemas.uuid,
  location_id: schemas.uuid.description('Totals then count this location only.'),
  sku: namedFilterSchemas.sku,
  location_name: namedFilterSchemas.location_name.description('Totals then count the location(s) with this exact name, ignoring case.'),
  search: searchQuery('the SKU or the name of the product'),
};

export const stockQuery = Joi.object({ ...schemas.pagination, ...stockFilterKeys, ordering: orderingQuery(STOCK_ORDERING) });

export const importStockQuery = Joi.object({
  dry_run: Joi.boolean().default(false).description('Check every row and book nothing.'),
});

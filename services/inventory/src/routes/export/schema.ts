import Joi from 'joi';
import { productFilterKeys } from '../product-models/schema';
import { stockFilterKeys } from '../stock/schema';
import { movementFilterKeys } from '../movements/schema';

/** The company export takes no query parameters. */
export const exportQuery = Joi.object({});

/** `GET /api/v1/export/products/`: the filters and sort of `GET /api/v1/product-models/`, without paging. */
export const productExportQuery = Joi.object(productFilterKeys);

/** `GET /api/v1/export/stock/`: the filters of `GET /api/v1/stock/`, without paging (the order is fixed). */
export const stockExportQuery = Joi.object(stockFilterKeys);

/**
 * `GET /api/v1/export/movements/`: the filters and sort of `GET /api/v1/movements/`, without paging; oldest first
 * unless `ordering` says otherwise.
 */
export const movementExportQuery = Joi.object(movementFilterKeys);

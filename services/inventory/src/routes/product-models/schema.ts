/**
 * HTTP shapes of /api/v1/product-models/. `engine_config` is only checked to be an object here: its rules
 * depend on the profile and live in engine/engine-config.ts, which answers 400 `invalid_engine_config`.
 */
import Joi from 'joi';
import { PROFILES, orderingQuery, schemas, searchQuery } from '@pi/common';
import { gtinSchema } from '../../catalog/gtin';
import { PRODUCT_ORDERING } from '../../sql/orderings';

export const MAX_IMPORT_ROWS = 5000;

/** The three imports (products, locations, opening stock) share one rate-limit budget (docs/api/rate-limits-cors-headers.md). */
export const IMPORT_RATE_LIMITS = ['product_import'];

const sku = Joi.string().trim().min(1).max(100);
const name = Joi.string().trim().min(1).max(200);
const description = Joi.string().max(5000).allow('', null);
const profile = Joi.string().valid(...PROFILES);
const engineConfig = Joi.object().unknown(true);
/** Optional; null or an empty string means none (docs/api/barcodes-and-camera.md). */
const barcode = gtinSchema.allow(null, '');

export const createProductBody = Joi.object({
  sku: sku.required(),
  name: name.required(),
  profile: profile.required(),
  engine_config: engineConfig.required(),
  description,
  barcode,
});

/** PUT: a full replacement; an absent description or barcode clears it. `is_active` is PATCH's business. */
export const replaceProductBody = createProductBody;

export const updateProductBody = Joi.object({
  sku,
  name,
  profile,
  engine_config: engineConfig,
  description,
  barcode,
  is_active: Joi.boolean().strict(),
}).min(1);

/** The list's filters and sort (the spreadsheet export takes them too). */
export const productFilterKeys = {
  profile,
  is_active: Joi.boolean(),
  search: searchQuery('the SKU or the name'),
  barcode: gtinSchema.description('The product with this barcode, compared as a GTIN-14 (a UPC-A finds the same product as its EAN-13 with a leading 0).'),
  ordering: orderingQuery(PRODUCT_ORDERING),
};

export const listProductsQuery = Joi.object({ ...schemas.pagination, ...productFilterKeys });

/**
 * One product of an import, as POST takes it, and `is_active` (a product may come in, or be updated to, deactivated);
 * checked row by row so that every problem can be named with its row.
 */
export const importRow = createProductBody.keys({ is_active: Joi.boolean().strict() });

/** The JSON import document; the rows themselves are checked by `importRow`. */
export const importJsonBody = Joi.object<{ products: unknown[] }>({
  products: Joi.array().items(Joi.any()).min(1).max(MAX_IMPORT_ROWS).required(),
});

export const importQuery = Joi.object({
  dry_run: Joi.boolean().default(false),
  update_existing: Joi.boolean()
    .default(false)
    .description('`true`: a row whose SKU the company has updates that product instead of being refused (docs/api/catalog-and-records.md).'),
});

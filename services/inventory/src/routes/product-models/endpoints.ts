/**
 * /api/v1/product-models/: the company's catalog (dashboard, bearer token), and its bulk import from JSON or
 * CSV. `import/` is routed before `{id}/`, which would otherwise claim it.
 */
import Joi from 'joi';
import type { Request } from 'express';
import { AppError, buildPage, endpoints, pageSchema, reply, schemas, type Call } from '@pi/common';
import type { InventoryContext } from '../../context';
import { importProducts } from '../../commands/import';
import type { ImportRequest } from '../../commands/import-rows';
import {
  createProduct,
  deleteProduct,
  getProduct,
  listProducts,
  replaceProduct,
  updateProduct,
  type NewProduct,
  type ProductChanges,
  type ProductFilters,
} from '../../commands/products';
import { csvBody } from '../../http/csv-body';
import { presentProduct, productSchema } from '../../presenters/product';
import { MAX_IMPORT_ROWS, createProductBody, importQuery, listProductsQuery, replaceProductBody, updateProductBody, IMPORT_RATE_LIMITS } from './schema';
import { keyedBody, requestOrigin } from '../../http/booking-request';
import { REPLAYED_HEADER } from '../movements/descriptions';

const base = '/api/v1/product-models';
const tag = 'product-models';
const params = schemas.idParams;

export const productPageSchema = pageSchema(productSchema, 'ProductPage');

const rowCount = Joi.number().integer().min(0);
const ONLY_UPDATING = ' Only with `update_existing=true`.';

export const importedProductsSchema = Joi.object({
  imported: Joi.number().integer().min(1).required().description('The rows imported: every row of the file.'),
  dry_run: Joi.boolean().valid(false).required(),
  created: rowCount.description(`Rows that created a product.${ONLY_UPDATING}`),
  updated: rowCount.description(`Rows that changed an existing product.${ONLY_UPDATING}`),
  unchanged: rowCount.description(`Rows that named an existing product and changed nothing of it (nothing was written).${ONLY_UPDATING}`),
  products: Joi.array().items(productSchema).required().description("Each row's product as it is now, in the order of the rows."),
}).id('ProductImport');

export const importDryRunSchema = Joi.object({
  imported: Joi.number().valid(0).required(),
  would_import: Joi.number().integer().min(1).required(),
  dry_run: Joi.boolean().valid(true).required(),
  would_create: rowCount.description(`Rows that would create a product.${ONLY_UPDATING}`),
  would_update: rowCount.description(`Rows that would change an existing product.${ONLY_UPDATING}`),
  unchanged: rowCount.description(`Rows that name an existing product and would change nothing of it.${ONLY_UPDATING}`),
}).id('ProductImportDryRun');

const BARCODE =
  '`barcode` is optional: a GTIN (EAN-8, UPC-A, EAN-13 or GTIN-14) with a correct check digit, unique in the company as a GTIN-14 ' +
  '(a UPC-A and the same number as an EAN-13 with a leading 0 are one barcode); anything else answers 400 naming `barcode`.';

const ENGINE_CONFIG =
  'The engine configuration is checked against the profile (`engine_config.engine_type` must match it); any problem answers ' +
  '400 `invalid_engine_config` with `validation_errors`. The completed config (defaults filled in) is stored and returned.';

export const productModelEndpoints = endpoints<InventoryContext>(
  {
    method: 'get',
    path: `${base}/`,
    operationId: 'listProductModels',
    tag,
    summary: 'List product models',
    description:
      'By name, ignoring case. `search` matches a substring of the SKU or the name, ignoring case. `barcode` finds the product with ' +
      'that GTIN (compared as a GTIN-14); a malformed barcode answers 400 naming `barcode`.',
    security: 'bearer',
    request: { query: listProductsQuery },
    responses: { 200: { description: 'One page of the catalog.', schema: productPageSchema } },
    handle: async (ctx, { query, identity, req }: Call<ProductFilters>) => {
      const { rows, count } = await listProducts(ctx, identity, query);
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentProduct));
    },
  },
  {
    method: 'post',
    path: `${base}/`,
    operationId: 'createProductModel',
    tag,
    summary: 'Create a product model',
    description: `${ENGINE_CONFIG} ${BARCODE} A SKU or barcode already used in the company answers 409 \`already_exists\` naming the field.`,
    security: 'bearer',
    request: { body: createProductBody },
    responses: { 201: { description: 'The product created.', schema: productSchema } },
    errors: [409],
    handle: async (ctx, { body, identity }: Call<unknown, NewProduct>) => presentProduct(await createProduct(ctx, identity, body)),
  },
  {
    method: 'post',
    path: `${base}/import/`,
    operationId: 'importProductModels',
    rateLimits: IMPORT_RATE_LIMITS,
    tag,
    summary: 'Import product models from JSON or CSV',
    description:
      `All or nothing, in one transaction, at most ${MAX_IMPORT_ROWS} rows. If any row fails the answer is 400 \`import_failed\` with ` +
      '`details.rows: [{row, field, message}]` naming every problem (rows counted from 1), and nothing is imported. ' +
      'With `dry_run=true` the rows are checked and nothing is written. Any other content type answers 415 `unsupported_media_type`. ' +
      'A SKU the company has is refused, unless `update_existing=true`: then its row updates that product with the fields the row names ' +
      '(the CSV columns the file has; an empty cell clears the field) and leaves the others, under the rules of PATCH.',
    security: 'bearer',
    idempotencyKey: true,
    request: {
      query: importQuery,
      otherBodyTypes: {
        'application/json':
          'A JSON document `{"products": [{sku, name, profile, engine_config, description?, barcode?, is_active?}, …]}` (1 to 5,000 products, within the JSON body limit).',
        'text/csv':
          'A CSV file (up to 5 MB) with a header row of `sku, name, profile, engine_type, unit, decimals, min_stock, max_stock, description, barcode, is_active` ' +
          "(any order and case; the first four required; empty cells are absent). The products export's other columns " +
          '(`created_at`, `updated_at`, `product_id`) are accepted and not read, so that an export imports as it is.',
      },
    },
    responses: {
      200: { description: '`dry_run=true`: every row is valid; nothing was written.', schema: importDryRunSchema },
      201: {
        description: 'Every row was imported (created, or with `update_existing=true` updated or left as it was).',
        schema: importedProductsSchema,
        headers: REPLAYED_HEADER,
      },
    },
    errors: [415],
    // A JSON body is read by the service's parser, with its own, smaller limit.
    before: [csvBody()],
    handle: async (ctx, { query, identity, req, res }: Call<{ dry_run: boolean; update_existing: boolean }>) => {
      const options = { dryRun: query.dry_run, updateExisting: query.update_existing };
      // Updating or not is part of what a key's request was: the same file sent the other way is another request.
      const origin = requestOrigin(req, query.update_existing ? { update_existing: true } : undefined);
      const answer = await importProducts(ctx, identity, importRequestOf(req), options, origin);
      return answer.body.dry_run ? answer.body : reply(201, keyedBody(res, answer));
    },
  },
  {
    method: 'get',
    path: `${base}/{id}/`,
    operationId: 'getProductModel',
    tag,
    summary: 'Get a product model',
    security: 'bearer',
    request: { params },
    responses: { 200: { description: 'The product.', schema: productSchema } },
    handle: async (ctx, { params, identity }: Call) => presentProduct(await getProduct(ctx, identity, params.id)),
  },
  {
    method: 'patch',
    path: `${base}/{id}/`,
    operationId: 'updateProductModel',
    tag,
    summary: 'Change fields of a product model',
    description:
      `${ENGINE_CONFIG} ${BARCODE} A changed profile is checked against the current (or given) config. Once the ledger names the product its ` +
      'profile cannot change (409 `profile_locked`) and its decimals can only grow (409 `decimals_locked`). ' +
      '`is_active: false` deactivates it: it leaves the widget and refuses bookings.',
    security: 'bearer',
    request: { params, body: updateProductBody },
    responses: { 200: { description: 'The product as changed.', schema: productSchema } },
    errors: [409],
    handle: async (ctx, { params, body, identity }: Call<unknown, ProductChanges>) => presentProduct(await updateProduct(ctx, identity, params.id, body)),
  },
  {
    method: 'put',
    path: `${base}/{id}/`,
    operationId: 'replaceProductModel',
    tag,
    summary: 'Replace a product model',
    description: `A full replacement: an absent description becomes null; \`is_active\` is left as it is. ${ENGINE_CONFIG} The 409s of PATCH apply.`,
    security: 'bearer',
    request: { params, body: replaceProductBody },
    responses: { 200: { description: 'The product as replaced.', schema: productSchema } },
    errors: [409],
    handle: async (ctx, { params, body, identity }: Call<unknown, NewProduct>) => presentProduct(await replaceProduct(ctx, identity, params.id, body)),
  },
  {
    method: 'delete',
    path: `${base}/{id}/`,
    operationId: 'deleteProductModel',
    tag,
    summary: 'Delete an unused product model',
    description:
      'Only a product nothing refers to can be deleted; otherwise 409 `product_in_use` (`details.used_by`): deactivate it with ' +
      '`PATCH {"is_active": false}` instead.',
    security: 'bearer',
    request: { params },
    responses: { 204: { description: 'Deleted.' } },
    errors: [409],
    handle: async (ctx, { params, identity }: Call) => {
      await deleteProduct(ctx, identity, params.id);
    },
  },
);

/** Which of the two accepted formats the request carries; anything else (or no Content-Type) is 415. */
function importRequestOf(req: Request): ImportRequest {
  if (req.is('text/csv')) return { format: 'csv', text: typeof req.body === 'string' ? req.body : '' };
  if (req.is('application/json')) return { format: 'json', body: req.body };
  const given = req.get('content-type');
  throw new AppError(415, 'unsupported_media_type', 'Send the import as application/json or text/csv.', {
    content_type: given ? `must be application/json or text/csv, not ${given}` : 'is required: application/json or text/csv',
  });
}

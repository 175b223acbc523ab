import Joi from 'joi';
import { ENGINE_TYPE_OF, PHYSICAL_LOCATION_TYPES, PROFILES } from '@pi/common';
import type { LocationStockRow, ProductStockRow } from '../commands/stock-levels';
import type { WidgetProductRow } from '../sql/widget-products';
import { DIMENSIONAL_UNITS, ENGINE_TYPES } from '../engine/engine-config';
import { stockDisplay, toNumber } from '../engine/quantity';
import { presentWidgetBatch, widgetBatchSchema } from './batch';
import { displaySchema, quantitySchema, uuid } from './schemas';

/**
 * The widget list: the documented `company`, `products` and `poly_products` (the DIMENSIONAL ones, which add unit
 * and decimals). `engine_type` follows from the profile (a product's engine config must match it). Built
 * in one pass over the rows, in their order (by name).
 */
export function presentWidgetProductList(rows: WidgetProductRow[]) {
  const products = [];
  const polyProducts = [];
  for (const [, , , id, name, sku, profile, unit, decimals, quantity, barcode] of rows) {
    if (id === null) continue;
    const base = { id, name, sku, stock_display: stockDisplay(quantity, decimals, unit), engine_type: ENGINE_TYPE_OF[profile], barcode };
    if (profile === 'DIMENSIONAL') polyProducts.push({ ...base, unit, decimals });
    else products.push(base);
  }
  return { company: rows[0]?.[0] ?? '', products, poly_products: polyProducts };
}

export function presentLocationStock(row: LocationStockRow, product: Pick<ProductStockRow, 'decimals' | 'unit'>) {
  return {
    location_id: row.location_id,
    location_name: row.location_name,
    location_type: row.location_type,
    quantity: toNumber(row.quantity),
    stock_display: stockDisplay(row.quantity, product.decimals, product.unit),
  };
}

/** A product's stock level on the core stock endpoint. */
export function presentStockLevel(p: ProductStockRow, locations: LocationStockRow[]) {
  return {
    product_id: p.id,
    sku: p.sku,
    name: p.name,
    profile: p.profile,
    unit: p.unit,
    decimals: p.decimals,
    total_quantity: toNumber(p.quantity),
    stock_display: stockDisplay(p.quantity, p.decimals, p.unit),
    locations: locations.map((l) => presentLocationStock(l, p)),
  };
}

type Detail = Awaited<ReturnType<typeof import('../commands/stock-levels').productDetail>>;

/** The widget's product detail: totals, per-location stock, and batches (BATCH) or an item count (SERIALIZED). */
export function presentProductDetail({ product, total, locations, batches, itemsCount }: Detail) {
  const display = (q: string) => stockDisplay(q, product.decimals, product.unit);
  return {
    id: product.id,
    name: product.name,
    sku: product.sku,
    barcode: product.barcode ?? null,
    description: product.description,
    profile: product.profile,
    engine_type: product.engineConfig.engine_type as string,
    unit: product.unit,
    decimals: product.decimals,
    total_quantity: toNumber(total),
    stock_display: display(total),
    locations: locations.map((l) => presentLocationStock(l, product)),
    ...(batches ? { batches: batches.map(presentWidgetBatch) } : {}),
    ...(itemsCount !== undefined ? { items_count: itemsCount } : {}),
  };
}

const widgetProductFields = {
  id: uuid.required(),
  name: Joi.string().required(),
  sku: Joi.string().required(),
  stock_display: displaySchema.required(),
  engine_type: Joi.string()
    .valid(...ENGINE_TYPES)
    .required(),
  barcode: Joi.string().allow(null).required().description('The GTIN of the product, or null.'),
};

/** The answer schema of a product of `products` in `presentWidgetProductList` (OpenAPI). */
export const widgetProductSchema = Joi.object(widgetProductFields).id('WidgetProduct');

/** The answer schema of a DIMENSIONAL product (`poly_products`) in `presentWidgetProductList` (OpenAPI). */
export const widgetPolyProductSchema = Joi.object({
  ...widgetProductFields,
  unit: Joi.string()
    .valid(...DIMENSIONAL_UNITS)
    .required(),
  decimals: Joi.number().integer().min(0).required(),
}).id('WidgetPolyProduct');

/** The answer schema of `presentLocationStock` (OpenAPI). */
export const locationStockSchema = Joi.object({
  location_id: uuid.required(),
  location_name: Joi.string().required(),
  location_type: Joi.string()
    .valid(...PHYSICAL_LOCATION_TYPES)
    .required(),
  quantity: quantitySchema.required(),
  stock_display: displaySchema.required(),
}).id('LocationStock');

/** The answer schema of `presentStockLevel` (OpenAPI). */
export const stockLevelSchema = Joi.object({
  product_id: uuid.required(),
  sku: Joi.string().required(),
  name: Joi.string().required(),
  profile: Joi.string()
    .valid(...PROFILES)
    .required(),
  unit: Joi.string().required(),
  decimals: Joi.number().integer().min(0).required(),
  total_quantity: quantitySchema.required(),
  stock_display: displaySchema.required(),
  locations: Joi.array().items(locationStockSchema).required().description('Physical locations holding stock of the product.'),
}).id('StockLevel');

/** The answer schema of `presentProductDetail` (OpenAPI). */
export const productDetailSchema = Joi.object({
  id: uuid.required(),
  name: Joi.string().required(),
  sku: Joi.string().required(),
  barcode: Joi.string().allow(null).required().description('The GTIN of the product, or null.'),
  description: Joi.string().allow('', null).required(),
  profile: Joi.string()
    .valid(...PROFILES)
    .required(),
  engine_type: Joi.string()
    .valid(...ENGINE_TYPES)
    .required(),
  unit: Joi.string().required(),
  decimals: Joi.number().integer().min(0).required(),
  total_quantity: quantitySchema.required(),
  stock_display: displaySchema.required(),
  locations: Joi.array().items(locationStockSchema).required(),
  batches: Joi.array().items(widgetBatchSchema).description('`BATCH` products only: their batches with stock left.'),
  items_count: Joi.number().integer().min(0).description('`SERIALIZED` products only: the active items.'),
}).id('ProductDetail');

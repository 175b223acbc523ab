import Joi from 'joi';
import { PROFILES, type ProductModel } from '@pi/common';
import { timestamp, uuid } from './schemas';
import { ENGINE_TYPES } from '../engine/engine-config';

type ProductRow = Pick<ProductModel, 'id' | 'sku' | 'name' | 'description' | 'profile' | 'engineConfig' | 'unit' | 'decimals' | 'isActive' | 'barcode'> & {
  createdAt?: Date;
  updatedAt?: Date;
};

/** A product model on core endpoints. */
export function presentProduct(p: ProductRow) {
  return {
    id: p.id,
    sku: p.sku,
    name: p.name,
    description: p.description,
    profile: p.profile,
    engine_type: p.engineConfig.engine_type as string,
    engine_config: p.engineConfig,
    unit: p.unit,
    decimals: p.decimals,
    is_active: p.isActive,
    barcode: p.barcode ?? null,
    created_at: p.createdAt ?? null,
    updated_at: p.updatedAt ?? null,
  };
}

/** The answer schema of `presentProduct` (OpenAPI). */
export const productSchema = Joi.object({
  id: uuid.required(),
  sku: Joi.string().required(),
  name: Joi.string().required(),
  description: Joi.string().allow('', null).required(),
  profile: Joi.string()
    .valid(...PROFILES)
    .required()
    .description('The tracking mode; `engine_config.engine_type` matches it.'),
  engine_type: Joi.string()
    .valid(...ENGINE_TYPES)
    .required()
    .description('`counter`, `serialized`, `batch` or `dimensional`, as in `engine_config`.'),
  engine_config: Joi.object().unknown(true).required().description('The completed engine configuration (defaults filled in).'),
  unit: Joi.string().required(),
  decimals: Joi.number().integer().min(0).required(),
  is_active: Joi.boolean().required(),
  barcode: Joi.string()
    .pattern(/^\d{8,14}$/)
    .allow(null)
    .required()
    .description('The GTIN (EAN-8, UPC-A, EAN-13 or GTIN-14) as given, or null.'),
  created_at: timestamp.required(),
  updated_at: timestamp.required(),
}).id('Product');

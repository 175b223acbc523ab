/**
 * The answer schema (OpenAPI) of `GET /api/v1/export/`, the document commands/export.ts writes: products and
 * locations as their presenters show them, the other sections as their rows (snake_case columns).
 */
import Joi from 'joi';
import { itemFields } from '../../presenters/item';
import { locationSchema } from '../../presenters/location';
import { ledgerEntryFields } from '../../presenters/movement';
import { productSchema } from '../../presenters/product';
import { calendarDay, quantitySchema, timestamp, uuid } from '../../presenters/schemas';
import { workOrderFields } from '../../presenters/work-order';

const exportBatch = Joi.object({
  id: uuid.required(),
  product_id: uuid.required(),
  code: Joi.string().required(),
  expiration_date: calendarDay.allow(null).required(),
  created_at: timestamp.required(),
  updated_at: timestamp.required(),
});

const exportItem = Joi.object({ ...itemFields, updated_at: timestamp.required() });

const exportWorkOrder = Joi.object(workOrderFields);

const exportBalance = Joi.object({
  product_id: uuid.required(),
  location_id: uuid.required(),
  batch_id: uuid.allow(null).required(),
  quantity: quantitySchema.required(),
  updated_at: timestamp.required(),
});

const exportMovement = Joi.object({
  id: uuid.required(),
  seq: Joi.number().integer().required(),
  ...ledgerEntryFields,
  actor_kind: Joi.string().valid('user', 'api_key').required(),
  actor_id: uuid.required(),
  request_id: Joi.string().allow(null).required(),
  created_at: timestamp.required(),
});

export const companyExportSchema = Joi.object({
  company: Joi.object({ id: uuid.required(), name: Joi.string().required() }).required(),
  exported_at: timestamp.required(),
  product_models: Joi.array().items(productSchema).required(),
  locations: Joi.array().items(locationSchema).required(),
  batches: Joi.array().items(exportBatch).required(),
  physical_items: Joi.array().items(exportItem).required(),
  work_orders: Joi.array().items(exportWorkOrder).required(),
  stock_balances: Joi.array().items(exportBalance).required(),
  stock_movements: Joi.array().items(exportMovement).required().description('The ledger, in `seq` order.'),
}).id('CompanyExport');

/** Answer schemas (OpenAPI) of the widget's inventory answers that the routes shape themselves. */
import Joi from 'joi';
import { PHYSICAL_LOCATION_TYPES } from '@pi/common';
import { widgetBatchSchema } from '../../presenters/batch';
import { widgetItemSchema } from '../../presenters/item';
import { widgetLocationSchema } from '../../presenters/location';
import { displaySchema, quantitySchema, uuid } from '../../presenters/schemas';
import { widgetPolyProductSchema, widgetProductSchema } from '../../presenters/stock';
import { widgetWorkOrderSchema } from '../../presenters/work-order';

/** `GET /api/v1/widget/`. */
export const widgetProductListSchema = Joi.object({
  company: Joi.string().required().description("The company's name."),
  products: Joi.array().items(widgetProductSchema).required().description('Active products other than DIMENSIONAL ones, by name.'),
  poly_products: Joi.array().items(widgetPolyProductSchema).required().description('Active DIMENSIONAL products, by name.'),
}).id('WidgetProductList');

/** `GET /api/v1/widget/locations/`. */
export const widgetLocationListSchema = Joi.object({
  locations: Joi.array().items(widgetLocationSchema).required().description('Active physical locations, by name.'),
}).id('WidgetLocationList');

/** `POST /api/v1/widget/create_location/`. */
export const widgetCreatedLocationSchema = Joi.object({
  success: Joi.boolean().valid(true).required(),
  location: widgetLocationSchema.required(),
}).id('WidgetCreatedLocation');

/** `GET /api/v1/widget/items/`. */
export const widgetItemListSchema = Joi.object({
  items: Joi.array().items(widgetItemSchema).required().description('Active items, by serial number.'),
}).id('WidgetItemList');

/** `GET /api/v1/widget/batches/`. */
export const widgetBatchListSchema = Joi.object({
  batches: Joi.array()
    .items(widgetBatchSchema)
    .required()
    .description('Batches with stock left (at `location_id` when given), earliest expiry first (undated last).'),
}).id('WidgetBatchList');

/** `GET /api/v1/widget/location_inventory/`. */
export const widgetLocationInventorySchema = Joi.object({
  location: Joi.object({
    id: uuid.required(),
    name: Joi.string().required(),
    type: Joi.string()
      .valid(...PHYSICAL_LOCATION_TYPES)
      .required(),
  }).required(),
  products: Joi.array()
    .items(
      Joi.object({
        id: uuid.required(),
        sku: Joi.string().required(),
        name: Joi.string().required(),
        quantity: quantitySchema.required(),
        stock_display: displaySchema.required(),
      }),
    )
    .required()
    .description('Products with stock at the location, by name.'),
}).id('WidgetLocationInventory');

/** `GET /api/v1/widget/work_orders/`. */
export const widgetWorkOrderListSchema = Joi.object({
  work_orders: Joi.array().items(widgetWorkOrderSchema).required().description('`OPEN` and `IN_PROGRESS` work orders, earliest due first.'),
}).id('WidgetWorkOrderList');

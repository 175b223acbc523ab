/** HTTP shapes of the widget's inventory routes (the booking bodies live in http/booking-schemas.ts). */
import Joi from 'joi';
import { schemas } from '@pi/common';
import { gtinSchema } from '../../catalog/gtin';
import { historyRangeFields } from '../stock/schema';

/** Widget GETs without parameters (the API key is the gateway's business and never reaches the service). */
export const noQuery = Joi.object({});

export const productListQuery = Joi.object({
  location_id: schemas.uuid.description('Show the stock at this location only.'),
  barcode: gtinSchema.description('List only the product with this barcode (compared as a GTIN-14): what a scanned EAN or UPC finds.'),
});

/** `create_location/` takes what `POST /api/v1/locations/` takes. */
export { createLocationBody } from '../locations/schema';

export const itemsQuery = Joi.object({ product_id: schemas.uuid.required(), location_id: schemas.uuid });
export const batchesQuery = Joi.object({
  product_id: schemas.uuid.required(),
  location_id: schemas.uuid.description('Only the batches with stock at this physical location, with their quantity there.'),
});
export const locationInventoryQuery = Joi.object({ location_id: schemas.uuid.required() });

/** `{id}/history/`: the product's total over time, the periods as on `GET /api/v1/stock/history/`. */
export const widgetHistoryQuery = Joi.object(historyRangeFields);

/** What the descriptions of the widget's endpoints share. */
export const WIDGET_BASE = '/api/v1/widget';
export const IDS = 'Ids of another company answer 403; unknown ids, and VIRTUAL locations, 404.';
/** What every widget endpoint answers a QR scan's key (docs/api/scanning.md). */
export const SCAN = "A QR scan's key reaches only its code's target: naming another product answers 403 `access_denied`.";

/** HTTP shapes of the widget's inventory routes (the booking bodies live in http/booking-schemas.ts). */
import Joi from 'joi';
import { schemas } from '@pi/common';

/** Widget GETs without parameters (the API key is the gateway's business and never reaches the service). */
export const noQuery = Joi.object({});

export const productListQuery = Joi.object({ location_id: schemas.uuid.description('Show the stock at this location only.') });

/** `create_location/` takes what `POST /api/v1/locations/` takes. */
export { createLocationBody } from '../locations/schema';

export const itemsQuery = Joi.object({ product_id: schemas.uuid.required(), location_id: schemas.uuid });
export const batchesQuery = Joi.object({ product_id: schemas.uuid.required() });
export const locationInventoryQuery = Joi.object({ location_id: schemas.uuid.required() });

/** Pieces of the answer schemas (OpenAPI) that every presenter's schema uses. */
import Joi from 'joi';
import { timestampSchema, uuidSchema } from '@pi/common';

export { timestampSchema as timestamp, uuidSchema as uuid };
/** A calendar date `YYYY-MM-DD`. */
export const calendarDay = Joi.string()
  .pattern(/^\d{4}-\d{2}-\d{2}$/)
  .meta({ format: 'date' });
/** A quantity as a JSON number. */
export const quantitySchema = Joi.number();
/** The quantity with exactly the product's `decimals` places and its unit: `"12 pcs"`, `"3.50 m"`. */
export const displaySchema = Joi.string().description('The quantity with exactly `decimals` places and the unit: `"12 pcs"`, `"3.50 m"`.');

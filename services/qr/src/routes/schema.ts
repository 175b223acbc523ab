/**
 * HTTP shapes of the public scan routes (routes/scan.ts). `/go/{code}/` validates nothing: a malformed or
 * unknown code answers the HTML 404 page, never a 400.
 */
import Joi from 'joi';

export const exchangeTokenBody = Joi.object({
  token: Joi.string().max(4096).required().description('The `token` of the redirect URL (`/widget/?token=…`).'),
});

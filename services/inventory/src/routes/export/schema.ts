import Joi from 'joi';

/** The export takes no query parameters. */
export const exportQuery = Joi.object({});

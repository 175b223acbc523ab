import Joi from 'joi';

export const loginBody = Joi.object({
  username: Joi.string().max(150).required(),
  password: Joi.string().max(128).required(),
});

export const refreshBody = Joi.object({
  refresh: Joi.string().max(4096).required(),
});

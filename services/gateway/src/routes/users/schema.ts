import Joi from 'joi';
import { ROLES, orderingQuery, schemas } from '@pi/common';
import { USER_ORDERING } from '../../commands/users';

export const username = Joi.string()
  .min(3)
  .max(150)
  .pattern(/^[A-Za-z0-9_.@+-]+$/)
  .messages({
    'string.pattern.base': 'may contain only letters, digits and _ . @ + -',
  });
export const password = Joi.string().min(8).max(128);
export const email = Joi.string().email({ tlds: false }).max(254).allow(null);

export const createUserBody = Joi.object({
  username: username.required(),
  password: password.required(),
  email,
  role: Joi.string()
    .valid(...ROLES)
    .default('member'),
});

export const updateUserBody = Joi.object({
  email,
  password,
  role: Joi.string().valid(...ROLES),
  is_active: Joi.boolean(),
}).min(1);

export const listUsersQuery = Joi.object({ ...schemas.pagination, ordering: orderingQuery(USER_ORDERING) });

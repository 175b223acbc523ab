import Joi from 'joi';
import { email, password, username } from '../users/schema';

export const registerBody = Joi.object({
  company_name: Joi.string().trim().min(1).max(200).required(),
  username: username.required(),
  password: password.required(),
  email,
});

import Joi from 'joi';
import { email, password, username } from '../users/schema';

/** A registration as `registerBody` cleans it. */
export interface RegisterBody {
  company_name: string;
  username: string;
  password: string;
  email?: string | null;
}

export const registerBody = Joi.object<RegisterBody>({
  company_name: Joi.string().trim().min(1).max(200).required(),
  username: username.required(),
  password: password.required(),
  email,
});

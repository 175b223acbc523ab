/** POST /api/v1/register/: a new company with its admin user and its widget key (its value shown this once). */
import Joi from 'joi';
import { PermissionDeniedError, endpoints, type Call } from '@pi/common';
import { registerCompany } from '../../commands/register-company';
import type { GatewayContext } from '../../context';
import { apiKeyWithValueSchema, companySchema, presentApiKey, presentCompany, presentUser, userSchema } from '../../presenters';
import { RegisterBody, registerBody } from './schema';

export const registrationSchema = Joi.object({
  company: companySchema.required(),
  user: userSchema.required(),
  api_key: apiKeyWithValueSchema.required(),
}).id('Registration');

export const registerEndpoints = endpoints<GatewayContext>({
  method: 'post',
  path: '/api/v1/register/',
  operationId: 'registerCompany',
  tag: 'registration',
  summary: 'Register a company',
  description:
    'Creates, in one transaction, the company, its VIRTUAL system locations `Inbound` and `Outbound`, its admin user and its ' +
    'widget key, whose value is in this answer only. Usernames are unique across all companies, ignoring case (409 ' +
    '`already_exists` naming `username`). 403 `registration_closed` when the server has `REGISTRATION_OPEN=false`.',
  security: 'none',
  request: { body: registerBody },
  responses: { 201: { description: 'The company, its admin user and its widget key (with the value, shown this once).', schema: registrationSchema } },
  errors: [403, 409],
  handle: async (ctx, { body }: Call<unknown, RegisterBody>) => {
    const { config } = ctx;
    if (!config.REGISTRATION_OPEN) throw new PermissionDeniedError('Registration is closed on this server.', 'registration_closed');
    const { company, user, apiKey, keyValue } = await registerCompany(
      ctx,
      { companyName: body.company_name, username: body.username, password: body.password, email: body.email },
      config.PASSWORD_HASH_COST,
    );
    return { company: presentCompany(company), user: presentUser(user), api_key: presentApiKey(apiKey, keyValue) };
  },
});

/** Registration: a new company with its admin user and its widget key. */
import Joi from 'joi';
import { operations } from '@pi/common';
import { apiKeyWithValueSchema, companySchema, userSchema } from '../../presenters';
import { registerBody } from './schema';

export const registrationSchema = Joi.object({
  company: companySchema.required(),
  user: userSchema.required(),
  api_key: apiKeyWithValueSchema.required(),
}).id('Registration');

export const registerOperations = operations({
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
});

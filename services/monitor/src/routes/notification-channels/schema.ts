/**
 * HTTP shapes of /api/v1/notification-channels/. A WEBHOOK channel has a `url` and no recipients, an EMAIL
 * channel `recipients` and no url. The URL's address is checked (SSRF) by the command, after this.
 */
import Joi from 'joi';
import { CHANNEL_KINDS, EVENT_TYPES, orderingQuery, schemas } from '@pi/common';
import { CHANNEL_ORDERING } from '../../commands/orderings';

export const MAX_RECIPIENTS = 20;

const name = Joi.string().trim().min(1).max(100);
const url = Joi.string()
  .trim()
  .max(2048)
  .uri({ scheme: ['http', 'https'] })
  .messages({
    'string.uriCustomScheme': '{{#label}} must be an http or https URL',
    'string.uri': '{{#label}} must be an http or https URL',
  });
const recipients = Joi.array()
  .items(Joi.string().trim().lowercase().max(254).email({ tlds: false }))
  .min(1)
  .max(MAX_RECIPIENTS)
  .unique();
const events = Joi.array()
  .items(Joi.string().valid(...EVENT_TYPES))
  .min(1)
  .unique();
const maxAttempts = Joi.number().strict().integer().min(1).max(5);

export const createChannelBody = Joi.object({
  name: name.required(),
  kind: Joi.string()
    .valid(...CHANNEL_KINDS)
    .required(),
  url: Joi.when('kind', {
    is: 'WEBHOOK',
    then: url.required(),
    otherwise: Joi.forbidden().messages({ 'any.unknown': '{{#label}} is only for WEBHOOK channels' }),
  }),
  recipients: Joi.when('kind', {
    is: 'EMAIL',
    then: recipients.required(),
    otherwise: Joi.forbidden().messages({ 'any.unknown': '{{#label}} is only for EMAIL channels' }),
  }),
  events: events.required(),
  max_attempts: maxAttempts.default(5),
  is_active: Joi.boolean().strict().default(true),
});

/** `kind` is fixed; whether `url` or `recipients` fits the channel is checked against its stored kind. */
export const updateChannelBody = Joi.object({
  name,
  url,
  recipients,
  events,
  max_attempts: maxAttempts,
  is_active: Joi.boolean().strict(),
}).min(1);

export const listChannelsQuery = Joi.object({
  ...schemas.pagination,
  kind: Joi.string().valid(...CHANNEL_KINDS),
  is_active: Joi.boolean(),
  ordering: orderingQuery(CHANNEL_ORDERING),
});

/** rotate-secret/ and test/ take no fields. */
export const emptyBody = Joi.object({});

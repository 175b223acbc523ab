import Joi from 'joi';
import { CHANNEL_KINDS, EVENT_TYPES } from '@pi/common';
import type { ChannelView } from '../commands/channels';

/**
 * A notification channel, as its company's admins see it (only they reach these endpoints): a WEBHOOK
 * channel with the plain signing `secret` receivers verify `X-PI-Signature` with; an EMAIL channel, which
 * signs nothing, with no secret but the way this system sends email (`email_backend`), so the dashboard can
 * say where console emails are read.
 */
export function presentChannel({ channel: c, secret }: ChannelView, emailBackend: 'console' | 'smtp') {
  return {
    id: c.id,
    name: c.name,
    kind: c.kind,
    url: c.url,
    recipients: c.recipients,
    events: c.events,
    max_attempts: c.maxAttempts,
    is_active: c.isActive,
    secret: c.kind === 'WEBHOOK' ? secret : null,
    email_backend: c.kind === 'EMAIL' ? emailBackend : null,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** The shape presentChannel answers, for the OpenAPI document. */
export const channelSchema = Joi.object({
  id: Joi.string().uuid().required(),
  name: Joi.string().required(),
  kind: Joi.string().valid(...CHANNEL_KINDS).required(),
  url: Joi.string().uri().allow(null).required().description('WEBHOOK channels; null for EMAIL.'),
  recipients: Joi.array().items(Joi.string()).allow(null).required().description('EMAIL channels; null for WEBHOOK.'),
  events: Joi.array().items(Joi.string().valid(...EVENT_TYPES)).required(),
  max_attempts: Joi.number().integer().min(1).max(5).required(),
  is_active: Joi.boolean().required(),
  secret: Joi.string()
    .allow(null)
    .required()
    .description(
      'WEBHOOK channels: the signing secret (`whsec_…`) receivers verify `X-PI-Signature` with; null when SECRET_ENCRYPTION_KEY cannot open it ' +
        '(rotate it). Always null for EMAIL channels, which sign nothing.',
    ),
  email_backend: Joi.string()
    .valid('console', 'smtp')
    .allow(null)
    .required()
    .description(
      'EMAIL channels: how this system sends email. `smtp`: through the configured mail server; `console` (debug mode): messages are not ' +
        'sent but written to the log of the process that sends them (with `npm start`, its output). Null for WEBHOOK channels.',
    ),
  created_at: Joi.date().iso().required(),
  updated_at: Joi.date().iso().required(),
}).id('NotificationChannel');

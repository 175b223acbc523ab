import Joi from 'joi';
import { CHANNEL_KINDS, EVENT_TYPES } from '@pi/common';
import type { ChannelView } from '../commands/channels';

export const CHANNEL_STATES = ['active', 'paused', 'inactive'] as const;

/** `inactive`: switched off by an admin; `paused`: held by the circuit breaker; else `active`. */
export function channelState(c: Pick<ChannelView['channel'], 'isActive' | 'pausedAt'>): (typeof CHANNEL_STATES)[number] {
  if (!c.isActive) return 'inactive';
  return c.pausedAt ? 'paused' : 'active';
}

/**
 * A notification channel, as its company's admins see it (only they reach these endpoints): a WEBHOOK
 * channel with the plain signing `secret` receivers verify `X-PI-Signature` with; an EMAIL channel, which
 * signs nothing, with no secret but the way this system sends email (`email_backend`), so the dashboard can
 * say where console emails are read. `state` and the `paused_*` fields are its circuit breaker.
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
    state: channelState(c),
    paused_at: c.pausedAt ?? null,
    paused_reason: c.pausedReason ?? null,
    next_probe_at: c.pausedAt ? (c.nextProbeAt ?? null) : null,
    consecutive_failures: c.consecutiveFailures ?? 0,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** The shape presentChannel answers, for the OpenAPI document. */
export const channelSchema = Joi.object({
  id: Joi.string().uuid().required(),
  name: Joi.string().required(),
  kind: Joi.string()
    .valid(...CHANNEL_KINDS)
    .required(),
  url: Joi.string().uri().allow(null).required().description('WEBHOOK channels; null for EMAIL.'),
  recipients: Joi.array().items(Joi.string()).allow(null).required().description('EMAIL channels; null for WEBHOOK.'),
  events: Joi.array()
    .items(Joi.string().valid(...EVENT_TYPES))
    .required(),
  max_attempts: Joi.number().integer().min(1).max(5).required(),
  is_active: Joi.boolean().required(),
  state: Joi.string()
    .valid(...CHANNEL_STATES)
    .required()
    .description(
      '`active`; `paused` by the circuit breaker after repeated failed attempts (its deliveries wait; one is tried as a probe now and then, ' +
        'and a success or `POST …/resume/` resumes it); `inactive` when `is_active` is false.',
    ),
  paused_at: Joi.date().iso().allow(null).required().description('Since when the circuit breaker holds the channel; null when it does not.'),
  paused_reason: Joi.string().allow(null).required().description('Why it was paused: the failures in a row and the last error (scrubbed of secrets).'),
  next_probe_at: Joi.date().iso().allow(null).required().description('While paused: when one waiting delivery may be tried as a probe.'),
  consecutive_failures: Joi.number().integer().min(0).required().description('Failed attempts in a row; a success resets it.'),
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

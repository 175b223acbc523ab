/**
 * /api/v1/notification-channels/: the company's webhook and email channels (admins only). Answers carry a
 * webhook channel's signing `secret`; `rotate-secret/` replaces it, `test/` sends a TEST event through the
 * channel now, `resume/` resumes a channel its circuit breaker paused.
 */
import Joi from 'joi';
import { buildPage, endpoints, pageSchema, reply, schemas, type Call } from '@pi/common';
import type { MonitorContext } from '../../context';
import {
  createChannel,
  deleteChannel,
  getChannel,
  listChannels,
  resumeChannel,
  rotateChannelSecret,
  sendTestDelivery,
  updateChannel,
  type ChannelChanges,
  type ChannelFilters,
  type ChannelView,
  type NewChannel,
} from '../../commands/channels';
import { channelSchema, presentChannel } from '../../presenters/channel';
import { deliverySchema, presentDelivery } from '../../presenters/delivery';
import { createChannelBody, emptyBody, listChannelsQuery, updateChannelBody } from './schema';

const present = (ctx: MonitorContext, view: ChannelView) => presentChannel(view, ctx.config.EMAIL_BACKEND);

const channelPage = pageSchema(channelSchema, 'NotificationChannelPage');

/** test/: the delivery of the TEST event, sent (200) or queued (202). */
const testDeliverySchema = Joi.object({ delivery: deliverySchema.required() }).id('TestDelivery');

const ssrf =
  'A webhook URL whose host resolves to a private, loopback, link-local, unspecified, multicast, CGNAT, reserved or IPv4-mapped private ' +
  'address is refused with 400 naming `url`.';

export const channelEndpoints = endpoints<MonitorContext>(
  {
    method: 'get',
    path: '/api/v1/notification-channels/',
    operationId: 'listNotificationChannels',
    tag: 'notification-channels',
    summary: 'List channels',
    description: 'Oldest first, each WEBHOOK channel with its signing `secret`.',
    security: 'bearer',
    adminOnly: true,
    request: { query: listChannelsQuery },
    responses: { 200: { description: 'A page of channels.', schema: channelPage } },
    handle: async (ctx, { query, identity, req }: Call<ChannelFilters>) => {
      const { rows, count } = await listChannels(ctx, identity, query);
      return buildPage(
        req,
        ctx.config.PUBLIC_BASE_URL,
        query,
        count,
        rows.map((view) => present(ctx, view)),
      );
    },
  },
  {
    method: 'post',
    path: '/api/v1/notification-channels/',
    operationId: 'createNotificationChannel',
    tag: 'notification-channels',
    summary: 'Create a channel',
    description: `A WEBHOOK channel takes \`url\`, an EMAIL channel \`recipients\` (1–20). The server generates a WEBHOOK channel's signing \`secret\`. ${ssrf}`,
    security: 'bearer',
    adminOnly: true,
    request: { body: createChannelBody },
    responses: { 201: { description: 'The new channel, with its secret.', schema: channelSchema } },
    handle: async (ctx, { body, identity }: Call<unknown, NewChannel>) => {
      return present(ctx, await createChannel(ctx, identity, body));
    },
  },
  {
    method: 'get',
    path: '/api/v1/notification-channels/{id}/',
    operationId: 'getNotificationChannel',
    tag: 'notification-channels',
    summary: 'One channel',
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams },
    responses: { 200: { description: 'The channel, with its secret.', schema: channelSchema } },
    handle: async (ctx, { params, identity }: Call) => {
      return present(ctx, await getChannel(ctx, identity, params.id));
    },
  },
  {
    method: 'patch',
    path: '/api/v1/notification-channels/{id}/',
    operationId: 'updateNotificationChannel',
    tag: 'notification-channels',
    summary: 'Change a channel',
    description: `\`kind\` is fixed: \`url\` only for WEBHOOK channels, \`recipients\` only for EMAIL ones (400 otherwise). ${ssrf}`,
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams, body: updateChannelBody },
    responses: { 200: { description: 'The changed channel.', schema: channelSchema } },
    handle: async (ctx, { params, body, identity }: Call<unknown, ChannelChanges>) => {
      return present(ctx, await updateChannel(ctx, identity, params.id, body));
    },
  },
  {
    method: 'delete',
    path: '/api/v1/notification-channels/{id}/',
    operationId: 'deleteNotificationChannel',
    tag: 'notification-channels',
    summary: 'Delete a channel',
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams },
    responses: { 204: { description: 'Deleted.' } },
    handle: async (ctx, { params, identity }: Call) => {
      await deleteChannel(ctx, identity, params.id);
    },
  },
  {
    method: 'post',
    path: '/api/v1/notification-channels/{id}/rotate-secret/',
    operationId: 'rotateNotificationChannelSecret',
    tag: 'notification-channels',
    summary: 'Replace the signing secret',
    description: 'The old secret stops signing at once. The body is empty or `{}`. An EMAIL channel signs nothing: 409 `webhook_only`.',
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams, body: emptyBody },
    responses: { 200: { description: 'The channel, with its new secret.', schema: channelSchema } },
    errors: [409],
    handle: async (ctx, { params, identity }: Call) => {
      return present(ctx, await rotateChannelSecret(ctx, identity, params.id));
    },
  },
  {
    method: 'post',
    path: '/api/v1/notification-channels/{id}/resume/',
    operationId: 'resumeNotificationChannel',
    tag: 'notification-channels',
    summary: 'Resume a channel the circuit breaker paused',
    description:
      'A channel is paused after `CHANNEL_PAUSE_AFTER_FAILURES` (default 5) failed attempts in a row; its deliveries wait, untouched, and one ' +
      'is tried as a probe every `CHANNEL_PROBE_INTERVAL_MS` (default 60 s). Resuming resets the count and lets the waiting deliveries go ' +
      'out now (queued at once with a queue, else by the next `check_rules` run). A channel that is not paused is answered unchanged. ' +
      'The body is empty or `{}`.',
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams, body: emptyBody },
    responses: { 200: { description: 'The channel, `state` no longer `paused`.', schema: channelSchema } },
    handle: async (ctx, { params, identity }: Call) => {
      return present(ctx, await resumeChannel(ctx, identity, params.id));
    },
  },
  {
    method: 'post',
    path: '/api/v1/notification-channels/{id}/test/',
    operationId: 'testNotificationChannel',
    tag: 'notification-channels',
    summary: 'Send a TEST event through the channel now',
    description:
      'Whether or not the channel lists TEST in `events`. An inactive channel answers 409 `channel_inactive`, a paused one 409 ' +
      '`channel_paused`. A failed first attempt is ' +
      'retried on the usual schedule. The body is empty or `{}`.',
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams, body: emptyBody },
    responses: {
      200: { description: 'Sent in this request (without a queue): the delivery with its first attempt.', schema: testDeliverySchema },
      202: { description: 'Queued for the notifier (`REDIS_URL` set): the delivery, not yet attempted.', schema: testDeliverySchema },
    },
    errors: [409],
    handle: async (ctx, { params, identity }: Call) => {
      const { queued, delivery } = await sendTestDelivery(ctx, identity, params.id);
      const answer = { delivery: presentDelivery(delivery) };
      return queued ? reply(202, answer) : answer;
    },
  },
);

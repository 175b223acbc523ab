/**
 * /api/v1/notification-channels/: the company's webhook and email channels (admins only). Answers carry a
 * webhook channel's signing `secret`; `rotate-secret/` replaces it, `test/` sends a TEST event through the
 * channel now, `resume/` resumes a channel its circuit breaker paused.
 */
import { Router } from 'express';
import { buildPage, idParam, schemas, validate } from '@pi/common';
import type { MonitorContext } from '../../context';
import {
  ChannelFilters,
  ChannelView,
  createChannel,
  deleteChannel,
  getChannel,
  listChannels,
  resumeChannel,
  rotateChannelSecret,
  sendTestDelivery,
  updateChannel,
} from '../../commands/channels';
import { presentChannel } from '../../presenters/channel';
import { presentDelivery } from '../../presenters/delivery';
import { requireAdmin } from '../admin-only';
import { createChannelBody, emptyBody, listChannelsQuery, updateChannelBody } from './schema';
import type { NewChannel, ChannelChanges } from '../../commands/channels';

export function notificationChannelsRouter(ctx: MonitorContext): Router {
  const router = Router();
  const base = '/api/v1/notification-channels';
  const present = (view: ChannelView) => presentChannel(view, ctx.config.EMAIL_BACKEND);
  router.use(base, requireAdmin);

  router.get(`${base}/`, validate({ query: listChannelsQuery }), async (req, res) => {
    const filters = req.query as unknown as ChannelFilters;
    const { rows, count } = await listChannels(ctx, req.identity!, filters);
    res.json(buildPage(req, ctx.config.PUBLIC_BASE_URL, filters, count, rows.map(present)));
  });

  router.post(`${base}/`, validate({ body: createChannelBody }), async (req, res) => {
    const body = req.body as NewChannel;
    res.status(201).json(present(await createChannel(ctx, req.identity!, body)));
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(present(await getChannel(ctx, req.identity!, idParam(req))));
  });

  router.patch(`${base}/:id/`, validate({ params: schemas.idParams, body: updateChannelBody }), async (req, res) => {
    const body = req.body as ChannelChanges;
    res.json(present(await updateChannel(ctx, req.identity!, idParam(req), body)));
  });

  router.delete(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    await deleteChannel(ctx, req.identity!, idParam(req));
    res.status(204).end();
  });

  router.post(`${base}/:id/rotate-secret/`, validate({ params: schemas.idParams, body: emptyBody }), async (req, res) => {
    res.json(present(await rotateChannelSecret(ctx, req.identity!, idParam(req))));
  });

  router.post(`${base}/:id/resume/`, validate({ params: schemas.idParams, body: emptyBody }), async (req, res) => {
    res.json(present(await resumeChannel(ctx, req.identity!, idParam(req))));
  });

  router.post(`${base}/:id/test/`, validate({ params: schemas.idParams, body: emptyBody }), async (req, res) => {
    const { queued, delivery } = await sendTestDelivery(ctx, req.identity!, idParam(req));
    res.status(queued ? 202 : 200).json({ delivery: presentDelivery(delivery) });
  });
  return router;
}

/**
 * /api/v1/notification-deliveries/: the delivery log, for debugging failed deliveries (admins only, like the
 * channels they belong to). Each delivery comes with its attempts; `retry/` sends a FAILED one again now.
 */
import { Router } from 'express';
import { ID_OWNERS, buildPage, idParam, ownedFilters, schemas, validate } from '@pi/common';
import type { MonitorContext } from '../../context';
import { DeliveryFilters, getDelivery, listDeliveries, retryDelivery } from '../../commands/deliveries';
import { presentDelivery } from '../../presenters/delivery';
import { requireAdmin } from '../admin-only';
import { emptyBody, listDeliveriesQuery } from './schema';

export function notificationDeliveriesRouter(ctx: MonitorContext): Router {
  const { config } = ctx;
  const router = Router();
  const base = '/api/v1/notification-deliveries';
  router.use(base, requireAdmin);

  router.get(
    `${base}/`,
    validate({ query: listDeliveriesQuery }),
    ownedFilters({ channel_id: ID_OWNERS.channel, event_id: ID_OWNERS.event }),
    async (req, res) => {
      const filters = req.query as unknown as DeliveryFilters;
      const { rows, count } = await listDeliveries(ctx, req.identity!, filters);
      res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentDelivery)));
    },
  );

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentDelivery(await getDelivery(ctx, req.identity!, idParam(req))));
  });

  router.post(`${base}/:id/retry/`, validate({ params: schemas.idParams, body: emptyBody }), async (req, res) => {
    const { queued, delivery } = await retryDelivery(ctx, req.identity!, idParam(req));
    res.status(queued ? 202 : 200).json(presentDelivery(delivery));
  });
  return router;
}

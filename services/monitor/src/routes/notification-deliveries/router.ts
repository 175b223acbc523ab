/**
 * /api/v1/notification-deliveries/: the delivery log, for debugging failed deliveries (admins only, like the
 * channels they belong to). Each delivery comes with its attempts.
 */
import { Router } from 'express';
import { ID_OWNERS, buildPage, idParam, ownedFilters, schemas, validate } from '@pi/common';
import type { MonitorContext } from '../../context';
import { DeliveryFilters, getDelivery, listDeliveries } from '../../commands/deliveries';
import { presentDelivery } from '../../presenters/delivery';
import { requireAdmin } from '../admin-only';
import { listDeliveriesQuery } from './schema';

export function notificationDeliveriesRouter({ config }: MonitorContext): Router {
  const router = Router();
  const base = '/api/v1/notification-deliveries';
  router.use(base, requireAdmin);

  router.get(`${base}/`, validate({ query: listDeliveriesQuery }), ownedFilters({ channel_id: ID_OWNERS.channel, event_id: ID_OWNERS.event }), async (req, res) => {
    const filters = req.query as unknown as DeliveryFilters;
    const { rows, count } = await listDeliveries(req.identity!, filters);
    res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentDelivery)));
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentDelivery(await getDelivery(req.identity!, idParam(req))));
  });
  return router;
}

/**
 * /api/v1/events/: the company's event log (any user reads it and handles events): list, one event, and the
 * two moves out of OPEN, `resolve/` and `ignore/`.
 */
import { Router } from 'express';
import { ID_OWNERS, buildPage, idParam, ownedFilters, schemas, validate } from '@pi/common';
import type { MonitorContext } from '../../context';
import { EventFilters, getEvent, listEvents, moveEvent } from '../../commands/events';
import { ruleIdOwner } from '../../commands/rules';
import { presentEvent } from '../../presenters/event';
import { listEventsQuery, transitionBody } from './schema';

export function eventsRouter(ctx: MonitorContext): Router {
  const { config } = ctx;
  const router = Router();
  const base = '/api/v1/events';

  router.get(`${base}/`, validate({ query: listEventsQuery }), ownedFilters({ product_id: ID_OWNERS.product, rule_id: ruleIdOwner(ctx) }), async (req, res) => {
    const filters = req.query as unknown as EventFilters;
    const { rows, count } = await listEvents(ctx, req.identity!, filters);
    res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentEvent)));
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentEvent(await getEvent(ctx, req.identity!, idParam(req))));
  });

  router.post(`${base}/:id/resolve/`, validate({ params: schemas.idParams, body: transitionBody }), async (req, res) => {
    res.json(presentEvent(await moveEvent(ctx, req.identity!, idParam(req), 'RESOLVED')));
  });

  router.post(`${base}/:id/ignore/`, validate({ params: schemas.idParams, body: transitionBody }), async (req, res) => {
    res.json(presentEvent(await moveEvent(ctx, req.identity!, idParam(req), 'IGNORED')));
  });
  return router;
}

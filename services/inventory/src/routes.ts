/** All inventory routes, in two halves, from the endpoint lists of openapi.ts (which orders them). */
import { RequestHandler, Router } from 'express';
import { endpointRouter, type Database, type MetricsRegistry, type ServiceConfig } from '@pi/common';
import { BookingMetrics } from './ledger/booking-metrics';
import type { InventoryContext } from './context';
import { coreEndpoints, widgetEndpoints } from './openapi';

export interface InventoryRoutesDeps {
  db: Pick<Database, 'sequelize'>;
  config: Pick<ServiceConfig, 'PUBLIC_BASE_URL'>;
  /** The service's registry: bookings are counted into it. */
  metrics?: MetricsRegistry;
}

export function inventoryRoutes({ db, config, metrics }: InventoryRoutesDeps): Router {
  const ctx: InventoryContext = { sequelize: db.sequelize, config, bookings: metrics && new BookingMetrics(metrics) };
  // Each request walks only its own half: the widget's hot paths skip matching the core's thirty routes, and
  // core requests the widget's (docs/operations/benchmarks.md). No core path starts with the widget's prefix.
  const core = Router();
  core.use(onlyIf((path) => !path.startsWith(WIDGET_PREFIX)));
  core.use(endpointRouter(ctx, coreEndpoints));
  const widget = Router();
  widget.use(onlyIf((path) => path.startsWith(WIDGET_PREFIX)));
  widget.use(endpointRouter(ctx, widgetEndpoints));
  const router = Router();
  router.use(core, widget);
  return router;
}

const WIDGET_PREFIX = '/api/v1/widget/';

/** A router's first step: leaves the router at once (`next('router')`) for a path that is not its own. */
function onlyIf(ownPath: (path: string) => boolean): RequestHandler {
  return (req, _res, next) => next(ownPath(req.path) ? undefined : 'router');
}

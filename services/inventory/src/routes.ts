/**
 * All inventory routes. Widget routes with fixed names come before the widget's `{id}/` routes
 * (widget/catalog.ts), which would otherwise claim them.
 */
import { RequestHandler, Router } from 'express';
import { endpointRouter, type Database, type MetricsRegistry, type ServiceConfig } from '@pi/common';
import { BookingMetrics } from './ledger/booking-metrics';
import type { InventoryContext } from './context';
import { batchEndpoints } from './routes/batches/endpoints';
import { exportEndpoints } from './routes/export/endpoints';
import { itemEndpoints } from './routes/items/endpoints';
import { locationEndpoints } from './routes/locations/endpoints';
import { movementEndpoints } from './routes/movements/endpoints';
import { productModelEndpoints } from './routes/product-models/endpoints';
import { stockEndpoints } from './routes/stock/endpoints';
import { widgetBookingEndpoints } from './routes/widget/bookings';
import { widgetCatalogEndpoints } from './routes/widget/catalog';
import { widgetRecordEndpoints } from './routes/widget/records';
import { workOrderEndpoints } from './routes/work-orders/endpoints';

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
  core.use(
    endpointRouter(ctx, [
      ...productModelEndpoints,
      ...exportEndpoints,
      ...stockEndpoints,
      ...movementEndpoints,
      ...locationEndpoints,
      ...itemEndpoints,
      ...batchEndpoints,
      ...workOrderEndpoints,
    ]),
  );
  const widget = Router();
  widget.use(onlyIf((path) => path.startsWith(WIDGET_PREFIX)));
  // The catalog's `{id}/` routes last: they would claim the fixed names (the document lists the catalog first).
  widget.use(endpointRouter(ctx, [...widgetRecordEndpoints, ...widgetBookingEndpoints, ...widgetCatalogEndpoints]));
  const router = Router();
  router.use(core, widget);
  return router;
}

const WIDGET_PREFIX = '/api/v1/widget/';

/** A router's first step: leaves the router at once (`next('router')`) for a path that is not its own. */
function onlyIf(ownPath: (path: string) => boolean): RequestHandler {
  return (req, _res, next) => next(ownPath(req.path) ? undefined : 'router');
}

/**
 * All inventory routes. Widget routes with fixed names come before the widget's `{id}/` routes
 * (widget/catalog.ts), which would otherwise claim them.
 */
import { RequestHandler, Router } from 'express';
import { endpointRouter, type Database, type MetricsRegistry, type ServiceConfig } from '@pi/common';
import { BookingMetrics } from './ledger/booking-metrics';
import type { InventoryContext } from './context';
import { batchesRouter } from './routes/batches/router';
import { exportRouter } from './routes/export/router';
import { itemsRouter } from './routes/items/router';
import { locationEndpoints } from './routes/locations/endpoints';
import { movementsRouter } from './routes/movements/router';
import { productModelsRouter } from './routes/product-models/router';
import { stockRouter } from './routes/stock/router';
import { widgetBookingsRouter } from './routes/widget/bookings';
import { widgetCatalogRouter } from './routes/widget/catalog';
import { widgetLocationsRouter } from './routes/widget/locations';
import { widgetRecordsRouter } from './routes/widget/records';
import { workOrdersRouter } from './routes/work-orders/router';

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
  for (const routes of [
    productModelsRouter,
    exportRouter,
    stockRouter,
    movementsRouter,
    (c: InventoryContext) => endpointRouter(c, locationEndpoints),
    itemsRouter,
    batchesRouter,
    workOrdersRouter,
  ]) {
    core.use(routes(ctx));
  }
  const widget = Router();
  widget.use(onlyIf((path) => path.startsWith(WIDGET_PREFIX)));
  for (const routes of [widgetLocationsRouter, widgetRecordsRouter, widgetBookingsRouter, widgetCatalogRouter]) {
    widget.use(routes(ctx));
  }
  const router = Router();
  router.use(core, widget);
  return router;
}

const WIDGET_PREFIX = '/api/v1/widget/';

/** A router's first step: leaves the router at once (`next('router')`) for a path that is not its own. */
function onlyIf(ownPath: (path: string) => boolean): RequestHandler {
  return (req, _res, next) => next(ownPath(req.path) ? undefined : 'router');
}

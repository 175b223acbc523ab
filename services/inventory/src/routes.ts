import { Router } from 'express';
import type { Database, ServiceConfig } from '@pi/common';
import type { InventoryContext } from './context';
import { locationsRouter } from './routes/locations/router';
import { widgetLocationsRouter } from './routes/widget/locations';

export function inventoryRoutes({ db, config }: { db: Pick<Database, 'sequelize'>; config: Pick<ServiceConfig, 'PUBLIC_BASE_URL'> }): Router {
  const ctx: InventoryContext = { sequelize: db.sequelize, config };
  const router = Router();
  router.use(locationsRouter(ctx));
  router.use(widgetLocationsRouter(ctx));
  return router;
}

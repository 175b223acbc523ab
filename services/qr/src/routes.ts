/** QR service routes: authenticated ones (dashboard codes, widget QR) and public ones (scan, exchange). */
import { Router } from 'express';
import type { Database } from '@pi/common';
import type { QrConfig } from './config';
import type { QrContext } from './context';
import { labelsRouter } from './routes/qr-codes/labels';
import { qrCodesRouter } from './routes/qr-codes/router';
import { codeScanPolicyRouter } from './routes/qr-codes/scan-policy';
import { scanRoutes } from './routes/scan';
import { widgetQrRoutes } from './routes/widget/qr';

/** What the service hands the routes (runService's context, or a test's): the database and the QR settings. */
export interface QrRoutesDeps {
  db: Pick<Database, 'sequelize'>;
  config: QrConfig;
}

const qrContext = ({ db, config }: QrRoutesDeps): QrContext => ({ sequelize: db.sequelize, config });

export function qrRoutes(deps: QrRoutesDeps): Router {
  const ctx = qrContext(deps);
  const router = Router();
  router.use(labelsRouter(ctx));
  router.use(qrCodesRouter(ctx));
  router.use(codeScanPolicyRouter(ctx));
  router.use(widgetQrRoutes(ctx));
  return router;
}

export function qrPublicRoutes(deps: QrRoutesDeps): Router {
  return scanRoutes(qrContext(deps));
}

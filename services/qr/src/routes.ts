/** QR service routes: authenticated ones (dashboard codes, widget QR) and public ones (scan, exchange). */
import { Router } from 'express';
import type { Database } from '@pi/common';
import type { QrConfig } from './config';
import { labelsRouter } from './routes/qr-codes/labels';
import { qrCodesRouter } from './routes/qr-codes/router';
import { codeScanPolicyRouter } from './routes/qr-codes/scan-policy';
import { scanRoutes } from './routes/scan';
import { widgetQrRoutes } from './routes/widget/qr';

/** What the routes need: the database and the QR settings with the public base URL. */
export interface QrContext {
  db: Pick<Database, 'sequelize'>;
  config: QrConfig;
}

export function qrRoutes({ db, config }: QrContext): Router {
  const router = Router();
  router.use(labelsRouter(db.sequelize, config));
  router.use(qrCodesRouter(db.sequelize, config));
  router.use(codeScanPolicyRouter(config));
  router.use(widgetQrRoutes(db.sequelize));
  return router;
}

export function qrPublicRoutes({ db, config }: QrContext): Router {
  return scanRoutes(db.sequelize, config);
}

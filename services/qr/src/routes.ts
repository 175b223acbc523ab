/** QR service routes: authenticated ones (dashboard codes, widget QR) and public ones (scan, exchange). */
import type { Router } from 'express';
import { endpointRouter, type Database } from '@pi/common';
import type { QrConfig } from './config';
import type { QrContext } from './context';
import { qrEndpoints } from './openapi';

/** What the service hands the routes (runService's context, or a test's): the database and the QR settings. */
export interface QrRoutesDeps {
  db: Pick<Database, 'sequelize'>;
  config: QrConfig;
}

const qrContext = ({ db, config }: QrRoutesDeps): QrContext => ({ sequelize: db.sequelize, config });

/** Every endpoint that takes credentials, behind the service's identity check. */
export function qrRoutes(deps: QrRoutesDeps): Router {
  return endpointRouter(
    qrContext(deps),
    qrEndpoints.filter((e) => e.security !== 'none'),
  );
}

/** The endpoints without credentials (`security: 'none'`), mounted before the identity check. */
export function qrPublicRoutes(deps: QrRoutesDeps): Router {
  return endpointRouter(
    qrContext(deps),
    qrEndpoints.filter((e) => e.security === 'none'),
  );
}

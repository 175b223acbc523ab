/** The routes an Express app or router really has, found by walking its layers (Express 5 / router 2). */
import type { RequestSchemas } from '@pi/common';
import { createLogger } from '@pi/common';
import { UsageRecorder, createGatewayApp } from '@pi/gateway';
import { inventoryRoutes } from '@pi/inventory';
import { loadMonitorSettings, monitorRoutes } from '@pi/monitor';
import { qrPublicRoutes, qrRoutes } from '@pi/qr';
import { system } from './hooks';

export interface ExpressRoute {
  method: string;
  /** As an OpenAPI template: `:id` becomes `{id}`. */
  path: string;
  /** The schemas of the route's `validate()` step, if it has one. */
  requestSchemas?: RequestSchemas;
  /** The query filters its `ownedFilters()` step checks for company ownership, if it has one. */
  ownedFilters?: readonly string[];
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean>; stack: Layer[] };
  handle?: { stack?: Layer[]; requestSchemas?: RequestSchemas; ownedFilters?: readonly string[] };
}

export function expressRoutes(routerOrApp: unknown): ExpressRoute[] {
  const root = routerOrApp as { stack?: Layer[]; router?: { stack: Layer[] } };
  const stack = root.router?.stack ?? root.stack ?? [];
  return stack.flatMap(routesOfLayer);
}

function routesOfLayer(layer: Layer): ExpressRoute[] {
  if (layer.route) {
    const validator = layer.route.stack.find((l) => l.handle?.requestSchemas)?.handle?.requestSchemas;
    const owned = layer.route.stack.find((l) => l.handle?.ownedFilters)?.handle?.ownedFilters;
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
    return paths.flatMap((path) =>
      Object.keys(layer.route!.methods)
        .filter((m) => m !== '_all')
        .map((method) => ({ method: method.toLowerCase(), path: path.replace(/:(\w+)/g, '{$1}'), requestSchemas: validator, ownedFilters: owned })),
    );
  }
  return layer.handle?.stack ? layer.handle.stack.flatMap(routesOfLayer) : [];
}

/** The routes of every service of the running test system, by service (the gateway's own included). */
export function serviceRoutes(): Record<'gateway' | 'inventory' | 'qr' | 'monitor', ExpressRoute[]> {
  const { db, gateway, qrTokenSecret, secretEncryptionKey } = system();
  const config = { PUBLIC_BASE_URL: 'http://localhost:8000' };
  const qrCtx = { db, config: { ...config, QR_TOKEN_SECRET: qrTokenSecret } };
  const logger = createLogger('routes', 'silent');
  const monitorSettings = loadMonitorSettings({ NODE_ENV: 'test', SECRET_ENCRYPTION_KEY: secretEncryptionKey, EMAIL_BACKEND: 'console' });
  const usage = new UsageRecorder(db.sequelize, logger, 1000);
  return {
    gateway: expressRoutes(createGatewayApp({ config: gateway.config, sequelize: db.sequelize, logger, usage })),
    inventory: expressRoutes(inventoryRoutes({ db, config })),
    qr: [...expressRoutes(qrRoutes(qrCtx)), ...expressRoutes(qrPublicRoutes(qrCtx))],
    monitor: expressRoutes(monitorRoutes({ db, config: { ...config, ...monitorSettings }, logger })),
  };
}

/** Monitor service routes: monitoring rules, the event log, notification channels, the delivery log and the run log. */
import type { Router } from 'express';
import { parseEncryptionKey } from '@pi/notify';
import { endpointRouter, type Database, type Logger, type MetricsRegistry } from '@pi/common';
import type { DeliveryQueue } from '@pi/notify';
import { registerCheckRulesMetrics } from './check-rules/run-metrics';
import type { MonitorConfig } from './config';
import type { MonitorContext } from './context';
import { monitorEndpoints } from './openapi';

export interface MonitorRoutesOptions {
  db: Pick<Database, 'sequelize'>;
  config: MonitorConfig;
  logger?: Logger;
  /** Set when REDIS_URL is: test deliveries are enqueued (202) instead of sent in the request (200). */
  queue?: DeliveryQueue;
  /** The service's registry: the check_rules run log is reported in it (check-rules/run-metrics.ts). */
  metrics?: MetricsRegistry;
}

export function monitorRoutes({ db, config, logger, queue, metrics }: MonitorRoutesOptions): Router {
  if (metrics) registerCheckRulesMetrics(metrics, db.sequelize, logger);
  // Decoded once; config.ts has already refused a key that does not decode to 32 bytes.
  const ctx: MonitorContext = { sequelize: db.sequelize, config, encryptionKey: parseEncryptionKey(config.SECRET_ENCRYPTION_KEY), logger, queue };
  return endpointRouter(ctx, monitorEndpoints);
}

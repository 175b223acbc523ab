/** Monitor service routes: monitoring rules, the event log, notification channels, the delivery log and the run log. */
import { Router } from 'express';
import { parseEncryptionKey } from '@pi/notify';
import type { Database, Logger, MetricsRegistry } from '@pi/common';
import type { DeliveryQueue } from '@pi/notify';
import { registerCheckRulesMetrics } from './check-rules/run-metrics';
import type { MonitorConfig } from './config';
import type { MonitorContext } from './context';
import { checkRulesRunsRouter } from './routes/check-rules-runs/router';
import { eventsRouter } from './routes/events/router';
import { monitoringRulesRouter } from './routes/monitoring-rules/router';
import { notificationChannelsRouter } from './routes/notification-channels/router';
import { notificationDeliveriesRouter } from './routes/notification-deliveries/router';

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
  const router = Router();
  for (const routes of [monitoringRulesRouter, eventsRouter, notificationChannelsRouter, notificationDeliveriesRouter, checkRulesRunsRouter]) {
    router.use(routes(ctx));
  }
  return router;
}

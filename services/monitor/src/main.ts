/** Monitor service: monitoring rules, the event log, notification channels and the delivery log (DESIGN.md §1). */
import { DeliveryQueue, runService } from '@pi/common';
import { MonitorSettings, monitorEnv } from './config';
import { monitorRoutes } from './routes';

runService<MonitorSettings>({
  name: 'monitor',
  portVariable: 'MONITOR_PORT',
  defaultPort: 8003,
  env: monitorEnv,
  routes: ({ db, config, logger }) => {
    // With Redis, channel tests are queued for the notifier. The producer holds nothing unsent (enqueue resolves
    // once Redis has the job), so the process may simply exit with it open.
    const queue = config.REDIS_URL
      ? new DeliveryQueue(config.REDIS_URL, { name: config.DELIVERY_QUEUE_NAME, prefix: config.DELIVERY_QUEUE_PREFIX, logger })
      : undefined;
    return monitorRoutes({ db, config, logger, queue });
  },
}).catch((err) => {
  process.stderr.write(`monitor failed to start: ${(err as Error).stack}\n`);
  process.exit(1);
});

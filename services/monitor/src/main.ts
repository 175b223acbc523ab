/** Monitor service: monitoring rules, the event log, notification channels and the delivery log (docs/architecture.md). */
import './tracing'; // first: see tracing.ts
import { pathsOf, runService } from '@pi/common';
import { MonitorSettings, deliveryQueueOf, monitorEnv } from './config';
import { monitorApi } from './openapi';
import { monitorRoutes } from './routes';

runService<MonitorSettings>({
  name: 'monitor',
  portVariable: 'MONITOR_PORT',
  defaultPort: 8003,
  env: monitorEnv,
  paths: pathsOf(monitorApi),
  routes: ({ db, config, logger, metrics }) => {
    // With Redis, channel tests are queued for the notifier. The producer holds nothing unsent (enqueue resolves
    // once Redis has the job), so the process may simply exit with it open.
    return monitorRoutes({ db, config, logger, metrics, queue: deliveryQueueOf(config, logger) });
  },
}).catch((err) => {
  process.stderr.write(`monitor failed to start: ${(err as Error).stack}\n`);
  process.exit(1);
});

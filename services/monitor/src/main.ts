/** Monitor service: monitoring rules, the event log, notification channels and `check_rules` (DESIGN.md §1). */
import { runService } from '@pi/common';
import { monitorRoutes } from './routes';

runService({ name: 'monitor', portVariable: 'MONITOR_PORT', defaultPort: 8003, routes: monitorRoutes }).catch((err) => {
  process.stderr.write(`monitor failed to start: ${(err as Error).stack}\n`);
  process.exit(1);
});

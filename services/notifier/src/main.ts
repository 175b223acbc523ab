/** Notifier: BullMQ worker delivering webhooks and emails (the monitoring issue); here, its probes. */
import { runService } from '@pi/common';
import { notifierRoutes } from './routes';

runService({ name: 'notifier', portVariable: 'NOTIFIER_PORT', defaultPort: 8004, routes: notifierRoutes }).catch((err) => {
  process.stderr.write(`notifier failed to start: ${(err as Error).stack}\n`);
  process.exit(1);
});

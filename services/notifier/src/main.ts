/**
 * Notifier: the BullMQ worker that delivers webhooks and emails (docs/architecture.md), with its probes and metrics.
 * Config: the common variables, the delivery settings (libs/notify settings.ts), DELIVERY_QUEUE_NAME /
 * DELIVERY_QUEUE_PREFIX (must match the monitor's), NOTIFIER_CONCURRENCY and NOTIFIER_JOB_LOCK_MS.
 */
import './tracing'; // first: see tracing.ts
import { runService } from '@pi/common';
import { NOTIFIER_PATHS, notifierRoutes } from './routes';
import { NotifierSettings, notifierEnv, startNotifierWorker } from './worker';

runService<NotifierSettings>({
  name: 'notifier',
  portVariable: 'NOTIFIER_PORT',
  defaultPort: 8004,
  env: notifierEnv,
  routes: () => notifierRoutes(),
  paths: NOTIFIER_PATHS,
  start: (ctx) => startNotifierWorker(ctx),
}).catch((err) => {
  process.stderr.write(`notifier failed to start: ${(err as Error).stack}\n`);
  process.exit(1);
});

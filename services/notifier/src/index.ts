export { NOTIFIER_PATHS, notifierRoutes } from './routes';
export { DeliveryMetrics } from './metrics';
export { QUEUE_STATES, registerQueueMetrics } from './queue-metrics';
export { notifierEnv, startNotifierWorker } from './worker';
export type { NotifierSettings } from './worker';

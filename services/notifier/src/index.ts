export { NOTIFIER_PATHS, notifierRoutes } from './routes';
export { DeliveryMetrics } from './metrics';
export { notifierEnv, startNotifierWorker } from './worker';
export type { NotifierSettings } from './worker';

/**
 * The notifier's HTTP surface besides its open probes (/healthz, /readyz, from the shared skeleton): GET
 * /metrics, behind internal auth like every service route. Its work comes from the queue, not from HTTP.
 */
import { Router } from 'express';
import { DeliveryMetrics, METRICS_CONTENT_TYPE } from './metrics';

/** The paths of these routes (the notifier has no OpenAPI module: it is not public). */
export const NOTIFIER_PATHS = ['/metrics'];

export interface NotifierRouteDeps {
  metrics?: DeliveryMetrics;
}

export function notifierRoutes(deps: NotifierRouteDeps = {}): Router {
  const metrics = deps.metrics ?? new DeliveryMetrics();
  const router = Router();
  router.get('/metrics', (_req, res) => {
    res.type(METRICS_CONTENT_TYPE).send(metrics.render());
  });
  return router;
}

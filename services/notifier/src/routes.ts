/**
 * The notifier's HTTP surface: none of its own. Its probes (/healthz, /readyz) and its metrics (/metrics, see
 * docs/operations/metrics.md) come from the shared skeleton; its work comes from the queue, not from HTTP.
 */
import { Router } from 'express';

/** The paths of these routes (the notifier has no OpenAPI module: it is not public). */
export const NOTIFIER_PATHS: string[] = [];

export function notifierRoutes(): Router {
  return Router();
}

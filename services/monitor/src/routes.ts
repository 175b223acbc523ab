/** Monitor service routes. Rules, events, channels and deliveries arrive with the monitoring issue. */
import { Router } from 'express';

export function monitorRoutes(): Router {
  return Router();
}

/** The notifier answers only its probes; its work (delivering webhooks and email) comes from the queue. */
import { Router } from 'express';

export function notifierRoutes(): Router {
  return Router();
}

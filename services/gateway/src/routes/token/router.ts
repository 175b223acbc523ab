/** POST /api/token/ (login) and POST /api/token/refresh/. */
import { Router } from 'express';
import { ROUTER_OPTIONS, validate } from '@pi/common';
import { logIn, refreshAccess } from '../../commands/sessions';
import type { GatewayConfig } from '../../config';
import { loginBody, refreshBody } from './schema';

export function tokenRouter(config: GatewayConfig): Router {
  const router = Router(ROUTER_OPTIONS);
  router.post('/api/token/', validate({ body: loginBody }), async (req, res) => {
    res.json(await logIn(req.body.username, req.body.password, config));
  });
  router.post('/api/token/refresh/', validate({ body: refreshBody }), async (req, res) => {
    res.json(await refreshAccess(req.body.refresh, config));
  });
  return router;
}

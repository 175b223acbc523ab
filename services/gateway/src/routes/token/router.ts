/** POST /api/token/ (login) and POST /api/token/refresh/. */
import { Router } from 'express';
import { ROUTER_OPTIONS, validate } from '@pi/common';
import { logIn, refreshAccess } from '../../commands/sessions';
import type { GatewayConfig } from '../../config';
import { loginBody, refreshBody } from './schema';

export function tokenRouter(config: GatewayConfig): Router {
  const router = Router(ROUTER_OPTIONS);
  router.post('/api/token/', validate({ body: loginBody }), async (req, res) => {
    const body = req.body as { username: string; password: string };
    res.json(await logIn(body.username, body.password, config));
  });
  router.post('/api/token/refresh/', validate({ body: refreshBody }), async (req, res) => {
    const body = req.body as { refresh: string };
    res.json(await refreshAccess(body.refresh, config));
  });
  return router;
}

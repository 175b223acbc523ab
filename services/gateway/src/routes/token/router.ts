/** POST /api/token/ (login) and POST /api/token/refresh/. */
import { Router } from 'express';
import { ROUTER_OPTIONS, validate } from '@pi/common';
import { logIn, refreshAccess } from '../../commands/sessions';
import type { GatewayContext } from '../../context';
import { loginBody, refreshBody } from './schema';

export function tokenRouter(ctx: GatewayContext): Router {
  const router = Router(ROUTER_OPTIONS);
  router.post('/api/token/', validate({ body: loginBody }), async (req, res) => {
    const body = req.body as { username: string; password: string };
    res.json(await logIn(ctx, body.username, body.password));
  });
  router.post('/api/token/refresh/', validate({ body: refreshBody }), async (req, res) => {
    const body = req.body as { refresh: string };
    res.json(await refreshAccess(ctx, body.refresh));
  });
  return router;
}

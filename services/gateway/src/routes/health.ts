import { Router } from 'express';
import { ROUTER_OPTIONS } from '@pi/common';
import type { GatewayContext } from '../context';

/** The gateway's own probes: alive, and able to reach the database (it authenticates against it). */
export function gatewayHealthRouter({ sequelize }: GatewayContext): Router {
  const router = Router(ROUTER_OPTIONS);
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await sequelize.query('SELECT 1');
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'unavailable' });
    }
  });
  return router;
}

import { Router } from 'express';
import type { Database } from '../db/database';

/** `/healthz`: the process answers. `/readyz`: it can reach its database (and any extra dependency). */
export function healthRouter(db: Database, extraChecks: Array<() => Promise<void>> = []): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await db.sequelize.query('SELECT 1');
      for (const check of extraChecks) await check();
      res.json({ status: 'ready' });
    } catch (err) {
      res.status(503).json({ status: 'unavailable', error: (err as Error).message });
    }
  });
  return router;
}

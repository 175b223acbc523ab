/**
 * /api/v1/check-rules/runs/: when the monitor last ran and what it did for the caller's company (any user of
 * the company; the dashboard shows the latest run on the channels screen).
 */
import { Router } from 'express';
import { PageRequest, buildPage, validate } from '@pi/common';
import type { MonitorContext } from '../../context';
import { listCheckRulesRuns } from '../../commands/check-rules-runs';
import { presentCheckRulesRun } from '../../presenters/check-rules-run';
import { listRunsQuery } from './schema';

export function checkRulesRunsRouter(ctx: MonitorContext): Router {
  const router = Router();
  router.get('/api/v1/check-rules/runs/', validate({ query: listRunsQuery }), async (req, res) => {
    const page = req.query as unknown as PageRequest;
    const { rows, count } = await listCheckRulesRuns(ctx, req.identity!, page);
    res.json(buildPage(req, ctx.config.PUBLIC_BASE_URL, page, count, rows.map(presentCheckRulesRun)));
  });
  return router;
}

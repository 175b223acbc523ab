/**
 * /api/v1/check-rules/runs/: when the monitor last ran and what it did for the caller's company (any user of
 * the company; the dashboard shows the latest run on the channels screen).
 */
import { PageRequest, buildPage, endpoints, pageSchema, type Call } from '@pi/common';
import type { MonitorContext } from '../../context';
import { listCheckRulesRuns } from '../../commands/check-rules-runs';
import { checkRulesRunSchema, presentCheckRulesRun } from '../../presenters/check-rules-run';
import { listRunsQuery } from './schema';

export const checkRulesRunEndpoints = endpoints<MonitorContext>({
  method: 'get',
  path: '/api/v1/check-rules/runs/',
  operationId: 'listCheckRulesRuns',
  tag: 'check-rules',
  summary: "List monitor runs, with this company's results",
  description:
    'The `check_rules` runs that reached the company, newest first (the latest 200 runs are kept), each with what it did for this ' +
    "company only. A run is recorded by `npm run check_rules`, the Kubernetes CronJob and `npm start`'s scheduler.",
  security: 'bearer',
  request: { query: listRunsQuery },
  responses: { 200: { description: 'A page of runs.', schema: pageSchema(checkRulesRunSchema, 'CheckRulesRunPage') } },
  handle: async (ctx, { query, identity, req }: Call<PageRequest>) => {
    const { rows, count } = await listCheckRulesRuns(ctx, identity, query);
    return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentCheckRulesRun));
  },
});

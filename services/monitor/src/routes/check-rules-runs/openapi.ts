/** /api/v1/check-rules/runs/ in the OpenAPI document: the monitor's run log, as each company sees it. */
import { operations, pageSchema } from '@pi/common';
import { checkRulesRunSchema } from '../../presenters/check-rules-run';
import { listRunsQuery } from './schema';

export const checkRulesRunOperations = operations({
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
});

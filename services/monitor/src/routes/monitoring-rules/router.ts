/**
 * /api/v1/monitoring-rules/: the company's effective rules (read by any user) and the stored rules (written by
 * any user of the company, like the rest of the catalog). Product-implied rules answer 409
 * `rule_managed_by_product` to PATCH and DELETE.
 */
import { Router } from 'express';
import { ID_OWNERS, buildPage, idParam, ownedFilters, schemas, validate } from '@pi/common';
import type { MonitorContext } from '../../context';
import { RuleFilters, createRule, deleteRule, getRule, listRules, updateRule, type NewRule, type RuleChanges } from '../../commands/rules';
import { presentRule } from '../../presenters/rule';
import { createRuleBody, listRulesQuery, updateRuleBody } from './schema';

export function monitoringRulesRouter(ctx: MonitorContext): Router {
  const { config } = ctx;
  const router = Router();
  const base = '/api/v1/monitoring-rules';

  router.get(`${base}/`, validate({ query: listRulesQuery }), ownedFilters({ product_id: ID_OWNERS.product }), async (req, res) => {
    const filters = req.query as unknown as RuleFilters;
    const { rows, count } = await listRules(ctx, req.identity!, filters);
    res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentRule)));
  });

  router.post(`${base}/`, validate({ body: createRuleBody }), async (req, res) => {
    const body = req.body as NewRule;
    res.status(201).json(presentRule(await createRule(ctx, req.identity!, body)));
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentRule(await getRule(ctx, req.identity!, idParam(req))));
  });

  router.patch(`${base}/:id/`, validate({ params: schemas.idParams, body: updateRuleBody }), async (req, res) => {
    const body = req.body as RuleChanges;
    res.json(presentRule(await updateRule(ctx, req.identity!, idParam(req), body)));
  });

  router.delete(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    await deleteRule(ctx, req.identity!, idParam(req));
    res.status(204).end();
  });
  return router;
}

/**
 * /api/v1/monitoring-rules/: the company's effective rules (read by any user) and the stored rules (written by
 * any user of the company, like the rest of the catalog). Product-implied rules answer 409
 * `rule_managed_by_product` to PATCH and DELETE.
 */
import { ID_OWNERS, buildPage, endpoints, pageSchema, schemas, type Call } from '@pi/common';
import type { MonitorContext } from '../../context';
import { RuleFilters, createRule, deleteRule, getRule, listRules, updateRule, type NewRule, type RuleChanges } from '../../commands/rules';
import { presentRule, ruleSchema } from '../../presenters/rule';
import { createRuleBody, listRulesQuery, updateRuleBody } from './schema';

const rulePage = pageSchema(ruleSchema, 'MonitoringRulePage');
const managedByProduct = "A rule from the product (`editable: false`) answers 409 `rule_managed_by_product`: edit the product's `engine_config` instead.";

export const ruleEndpoints = endpoints<MonitorContext>(
  {
    method: 'get',
    path: '/api/v1/monitoring-rules/',
    operationId: 'listMonitoringRules',
    tag: 'monitoring-rules',
    summary: 'List the effective rules',
    description:
      "Stored rules and the rules the company's active products imply (`engine_config.monitoring_rules`, and virtual THRESHOLD rules of " +
      '`min_stock`, `min_threshold`, `max_stock`). A `product_id` of another company answers 403, one that exists nowhere 404.',
    security: 'bearer',
    request: { query: listRulesQuery },
    responses: { 200: { description: 'A page of rules.', schema: rulePage } },
    errors: [404],
    ownedFilters: { product_id: ID_OWNERS.product },
    handle: async (ctx, { query, identity, req }: Call<RuleFilters>) => {
      const { rows, count } = await listRules(ctx, identity, query);
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentRule));
    },
  },
  {
    method: 'post',
    path: '/api/v1/monitoring-rules/',
    operationId: 'createMonitoringRule',
    tag: 'monitoring-rules',
    summary: 'Create a rule',
    description:
      'THRESHOLD takes `{min?, max?}` (at least one, min ≤ max); DATE_OFFSET `{date_field: "expiration_date", days_offset}` on BATCH products only; ' +
      "CUSTOM answers 400 `not_implemented`. The product must be the company's (403 otherwise, 404 if it exists nowhere).",
    security: 'bearer',
    request: { body: createRuleBody },
    responses: { 201: { description: 'The new rule.', schema: ruleSchema } },
    errors: [404],
    handle: async (ctx, { body, identity }: Call<unknown, NewRule>) => presentRule(await createRule(ctx, identity, body)),
  },
  {
    method: 'get',
    path: '/api/v1/monitoring-rules/{id}/',
    operationId: 'getMonitoringRule',
    tag: 'monitoring-rules',
    summary: 'One rule, stored or from a product',
    security: 'bearer',
    request: { params: schemas.idParams },
    responses: { 200: { description: 'The rule.', schema: ruleSchema } },
    handle: async (ctx, { params, identity }: Call) => presentRule(await getRule(ctx, identity, params.id)),
  },
  {
    method: 'patch',
    path: '/api/v1/monitoring-rules/{id}/',
    operationId: 'updateMonitoringRule',
    tag: 'monitoring-rules',
    summary: 'Change a stored rule',
    description: `The product and the trigger type are fixed; \`condition_config\` is checked against the rule's type. ${managedByProduct}`,
    security: 'bearer',
    request: { params: schemas.idParams, body: updateRuleBody },
    responses: { 200: { description: 'The changed rule.', schema: ruleSchema } },
    errors: [409],
    handle: async (ctx, { params, body, identity }: Call<unknown, RuleChanges>) => presentRule(await updateRule(ctx, identity, params.id, body)),
  },
  {
    method: 'delete',
    path: '/api/v1/monitoring-rules/{id}/',
    operationId: 'deleteMonitoringRule',
    tag: 'monitoring-rules',
    summary: 'Delete a stored rule',
    description: managedByProduct,
    security: 'bearer',
    request: { params: schemas.idParams },
    responses: { 204: { description: 'Deleted.' } },
    errors: [409],
    handle: async (ctx, { params, identity }: Call) => {
      await deleteRule(ctx, identity, params.id);
    },
  },
);

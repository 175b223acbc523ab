/**
 * Monitoring rules as the rules API sees them. The list is of *effective* rules (rules/effective-rules.ts):
 * stored rules, which this API creates and edits, and the rules a product's engine_config implies
 * (`monitoring_rules` entries and the min_stock / min_threshold / max_stock attributes), which are read-only
 * here: they change with the product (409 `rule_managed_by_product`).
 */
import { QueryTypes, Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize';
import {
  AccessDeniedError,
  AppError,
  AuditSnapshot,
  ConflictError,
  Identity,
  IdOwner,
  MonitoringRule,
  NotFoundError,
  PageRequest,
  ProductModel,
  RuleSource,
  RuleTriggerType,
  Severity,
  ValidationError,
  fieldMap,
  findOwned,
  recordAudit,
  validateValue,
  OrderTerm,
  compareBy,
} from '@pi/common';
import type { MonitorContext } from '../context';
import { RULE_ORDERING, SEVERITY_RANK } from './orderings';
import { EffectiveRule, effectiveRules, rulesOfProduct, storedRule } from '../rules/effective-rules';
import { conditionFor } from '../routes/monitoring-rules/schema';

export interface RuleFilters extends PageRequest {
  product_id?: string;
  trigger_type?: RuleTriggerType;
  source?: RuleSource;
  is_active?: boolean;
  ordering?: OrderTerm[];
}

export interface NewRule {
  product_id: string;
  trigger_type: RuleTriggerType | 'CUSTOM';
  condition_config: Record<string, unknown>;
  severity: Severity;
  name?: string | null;
  is_active: boolean;
}

export interface RuleChanges {
  condition_config?: Record<string, unknown>;
  severity?: Severity;
  name?: string | null;
  is_active?: boolean;
}

const findProduct = (identity: Identity, id: string, transaction?: Transaction) =>
  findOwned(ProductModel, id, identity.companyId, { transaction, what: 'Product', lock: transaction ? Transaction.LOCK.SHARE : undefined });

/** One page of the company's effective rules (stored first, then each product's, by product name). */
/** A rule's value of a RULE_ORDERING field. */
function ruleSortValue(rule: EffectiveRule, field: string): string | number | null {
  switch (field) {
    case 'name':
      return rule.name;
    case 'trigger_type':
      return rule.triggerType;
    case 'severity':
      return SEVERITY_RANK[rule.severity] ?? 0;
    case 'source':
      return rule.source;
    case 'product_id':
      return rule.productId;
    default:
      return rule.id;
  }
}

export async function listRules({ sequelize }: MonitorContext, identity: Identity, filters: RuleFilters) {
  const rules = (await effectiveRules(sequelize, identity.companyId, filters.product_id ? [filters.product_id] : undefined)).filter(
    (r) =>
      (filters.trigger_type === undefined || r.triggerType === filters.trigger_type) &&
      (filters.source === undefined || r.source === filters.source) &&
      (filters.is_active === undefined || r.isActive === filters.is_active),
  );
  // Without `ordering` the rules keep effectiveRules' order (stored ones as created, then product-implied ones).
  if (filters.ordering) rules.sort(compareBy(RULE_ORDERING, filters.ordering, ruleSortValue));
  const offset = (filters.page - 1) * filters.page_size;
  return { count: rules.length, rows: rules.slice(offset, offset + filters.page_size) };
}

interface ProductRulesRow {
  id: string;
  company_id: string;
  engine_config: Parameters<typeof rulesOfProduct>[0]['engine_config'];
}

/**
 * The product-implied rule with this id, and its company. Virtual ids are UUIDv5 hashes, so they are found by
 * recomputing them: first over the caller's products, then (to tell another company's rule, 403, from no rule
 * at all, 404) over every product that implies any rule. Only unknown ids pay for the second query.
 */
async function findVirtualRule(sequelize: Sequelize, companyId: string, id: string): Promise<{ rule: EffectiveRule; companyId: string } | undefined> {
  const search = async (ownCompany: boolean) => {
    const products = await sequelize.query<ProductRulesRow>(
      `SELECT id, company_id, engine_config FROM product_models
        WHERE company_id ${ownCompany ? '=' : '<>'} $1
          AND jsonb_exists_any(engine_config, ARRAY['min_stock', 'min_threshold', 'max_stock', 'monitoring_rules'])`,
      { bind: [companyId], type: QueryTypes.SELECT },
    );
    for (const product of products) {
      const rule = rulesOfProduct(product).find((r) => r.id === id);
      if (rule) return { rule, companyId: product.company_id };
    }
    return undefined;
  };
  return (await search(true)) ?? (await search(false));
}

/**
 * The owners of a rule id as a filter of the event log names it: a stored rule, a rule a product implies, or
 * a rule that is gone (deleted, or dropped from its product's config) but still named by events. The
 * caller's own company is looked for first, so that only ids that are not its own pay for the search of
 * every company's product rules. Like `ID_OWNERS`, it reads through the models' connection: an endpoint's
 * `ownedFilters` are declared before there is a context.
 */
export const ruleIdOwner: IdOwner = {
  what: 'Rule',
  owners: async (id, companyId) => {
    const stored = await MonitoringRule.findByPk(id, { attributes: ['companyId'], raw: true });
    if (stored) return [stored.companyId];
    const sequelize = MonitoringRule.sequelize!;
    const named = await sequelize.query<{ company_id: string }>('SELECT DISTINCT company_id FROM event_log WHERE rule_id = $1', {
      bind: [id],
      type: QueryTypes.SELECT,
    });
    const namedBy = named.map((r) => r.company_id);
    if (namedBy.includes(companyId)) return [companyId];
    const virtual = await findVirtualRule(sequelize, companyId, id);
    return virtual ? [virtual.companyId] : namedBy;
  },
};

type LocatedRule = { kind: 'stored'; rule: MonitoringRule } | { kind: 'virtual'; rule: EffectiveRule };

/** The rule named by id: stored or product-implied; 403 when it is another company's, 404 when it is nobody's. */
async function locateRule(sequelize: Sequelize, identity: Identity, id: string, transaction?: Transaction): Promise<LocatedRule> {
  const stored = await MonitoringRule.findByPk(id, { transaction, lock: transaction ? Transaction.LOCK.UPDATE : undefined });
  if (stored) {
    if (stored.companyId !== identity.companyId) throw new AccessDeniedError();
    return { kind: 'stored', rule: stored };
  }
  const virtual = await findVirtualRule(sequelize, identity.companyId, id);
  if (!virtual) throw new NotFoundError('Rule not found.');
  if (virtual.companyId !== identity.companyId) throw new AccessDeniedError();
  return { kind: 'virtual', rule: virtual.rule };
}

export class RuleManagedByProductError extends ConflictError {
  constructor(rule: EffectiveRule) {
    const where = rule.source === 'attribute' ? `engine_config.${rule.name}` : 'engine_config.monitoring_rules';
    super(
      'rule_managed_by_product',
      `This rule comes from the product's ${where}; change it by editing the product's engine_config (PATCH /api/v1/product-models/${rule.productId}/).`,
      { source: rule.source, product_id: rule.productId },
    );
  }
}

export async function getRule({ sequelize }: MonitorContext, identity: Identity, id: string): Promise<EffectiveRule> {
  const located = await locateRule(sequelize, identity, id);
  return located.kind === 'stored' ? storedRule(located.rule) : located.rule;
}

/** A stored rule's fields as the audit log records them (docs/api/roles-and-audit-log.md). */
function auditedRule(rule: MonitoringRule): AuditSnapshot {
  return {
    product_id: rule.productId,
    name: rule.name,
    trigger_type: rule.triggerType,
    condition_config: rule.conditionConfig,
    severity: rule.severity,
    is_active: rule.isActive,
  };
}

function notImplemented(): never {
  throw new AppError(400, 'not_implemented', 'CUSTOM rules are reserved and not implemented.', {
    trigger_type: 'CUSTOM rules are reserved and not implemented',
  });
}

export async function createRule({ sequelize }: MonitorContext, identity: Identity, input: NewRule): Promise<EffectiveRule> {
  return sequelize.transaction(async (transaction) => {
    // Isolation first: another company's product is 403 whatever else the request asks for.
    const product = await findProduct(identity, input.product_id, transaction);
    if (input.trigger_type === 'CUSTOM') notImplemented();
    if (input.trigger_type === 'DATE_OFFSET' && product.profile !== 'BATCH') {
      throw new ValidationError({ product_id: `DATE_OFFSET rules need a product with batches (profile BATCH), not ${product.profile}` });
    }
    const rule = await MonitoringRule.create(
      {
        companyId: identity.companyId,
        productId: product.id,
        name: input.name ?? null,
        triggerType: input.trigger_type,
        conditionConfig: input.condition_config,
        severity: input.severity,
        isActive: input.is_active,
      },
      { transaction },
    );
    await recordAudit(transaction, identity.companyId, identity, {
      action: 'create',
      resourceType: 'monitoring_rule',
      resourceId: rule.id,
      after: auditedRule(rule),
    });
    return storedRule(rule);
  });
}

/** The condition of a PATCH, checked against the stored rule's trigger type; fields named `condition_config.<x>`. */
function checkedCondition(triggerType: RuleTriggerType, condition: Record<string, unknown>): Record<string, unknown> {
  try {
    return validateValue(conditionFor[triggerType], condition, 'condition_config') as Record<string, unknown>;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const fields = fieldMap(
      Object.entries(err.details).map(([field, message]) => [field === 'condition_config' ? field : `condition_config.${field}`, String(message)] as const),
    );
    throw new ValidationError(fields);
  }
}

export async function updateRule({ sequelize }: MonitorContext, identity: Identity, id: string, changes: RuleChanges): Promise<EffectiveRule> {
  return sequelize.transaction(async (transaction) => {
    const located = await locateRule(sequelize, identity, id, transaction);
    if (located.kind === 'virtual') throw new RuleManagedByProductError(located.rule);
    const rule = located.rule;
    const before = auditedRule(rule);
    if (changes.condition_config !== undefined) rule.conditionConfig = checkedCondition(rule.triggerType, changes.condition_config);
    if (changes.severity !== undefined) rule.severity = changes.severity;
    if (changes.name !== undefined) rule.name = changes.name;
    if (changes.is_active !== undefined) rule.isActive = changes.is_active;
    await rule.save({ transaction });
    await recordAudit(transaction, identity.companyId, identity, {
      action: 'update',
      resourceType: 'monitoring_rule',
      resourceId: rule.id,
      before,
      after: auditedRule(rule),
    });
    return storedRule(rule);
  });
}

/** Deletes a stored rule. Its events stay in the log (they name the rule id). */
export async function deleteRule({ sequelize }: MonitorContext, identity: Identity, id: string): Promise<void> {
  await sequelize.transaction(async (transaction) => {
    const located = await locateRule(sequelize, identity, id, transaction);
    if (located.kind === 'virtual') throw new RuleManagedByProductError(located.rule);
    await located.rule.destroy({ transaction });
    await recordAudit(transaction, identity.companyId, identity, {
      action: 'delete',
      resourceType: 'monitoring_rule',
      resourceId: located.rule.id,
      before: auditedRule(located.rule),
    });
  });
}

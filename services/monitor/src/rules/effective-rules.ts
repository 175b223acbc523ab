/**
 * The rules that apply to a product: those created through the rules API (`monitoring_rules`), those in
 * the product's `engine_config.monitoring_rules`, and the virtual THRESHOLD rules its `min_stock`,
 * `min_threshold` and `max_stock` attributes imply (docs/api/monitoring-and-notifications.md, "Rule conditions"). Rules that come from a
 * product have stable ids (UUIDv5 of the product id and where the rule comes from), so events can name them.
 */
import { createHash } from 'node:crypto';
import { QueryTypes, Sequelize } from 'sequelize';
import type { MonitoringRule, RuleSource, RuleTriggerType, Severity } from '@pi/common/core';

export interface EffectiveRule {
  id: string;
  source: RuleSource;
  productId: string;
  name: string | null;
  triggerType: RuleTriggerType;
  conditionConfig: Record<string, unknown>;
  severity: Severity;
  isActive: boolean;
}

/** Namespace of the virtual rule ids (a fixed random UUID). */
const NAMESPACE = Buffer.from('6c1f0e2a9b7d4e3f8a5b2c1d0e9f8a7b', 'hex');

/** RFC 4122 version 5 UUID of `name` in this module's namespace. */
export function uuidV5(name: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(name).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const ATTRIBUTES = [
  ['min_stock', 'min'],
  ['min_threshold', 'min'],
  ['max_stock', 'max'],
] as const;

interface ProductRules {
  id: string;
  engine_config: {
    min_stock?: number;
    min_threshold?: number;
    max_stock?: number;
    monitoring_rules?: Array<{ trigger_type: RuleTriggerType | 'CUSTOM'; condition_config: Record<string, unknown>; severity?: Severity }>;
  };
}

/** The rules a product's engine config implies. */
export function rulesOfProduct(product: ProductRules): EffectiveRule[] {
  const rules: EffectiveRule[] = [];
  for (const [attribute, bound] of ATTRIBUTES) {
    const value = product.engine_config[attribute];
    if (value === undefined) continue;
    rules.push({
      id: uuidV5(`${product.id}:${attribute}`),
      source: 'attribute',
      productId: product.id,
      name: attribute,
      triggerType: 'THRESHOLD',
      conditionConfig: { [bound]: value },
      severity: 'WARNING',
      isActive: true,
    });
  }
  (product.engine_config.monitoring_rules ?? []).forEach((rule, index) => {
    if (rule.trigger_type === 'CUSTOM') return; // refused on save; never evaluated
    rules.push({
      id: uuidV5(`${product.id}:monitoring_rules:${index}`),
      source: 'engine_config',
      productId: product.id,
      name: `engine_config.monitoring_rules.${index}`,
      triggerType: rule.trigger_type,
      conditionConfig: rule.condition_config,
      severity: rule.severity ?? 'WARNING',
      isActive: true,
    });
  });
  return rules;
}

type StoredRuleRow = Pick<MonitoringRule, 'id' | 'productId' | 'name' | 'triggerType' | 'conditionConfig' | 'severity' | 'isActive'>;

/** A stored rule (created through the rules API) in the effective-rule shape every answer uses. */
export function storedRule(rule: StoredRuleRow): EffectiveRule {
  return {
    id: rule.id,
    source: 'rule',
    productId: rule.productId,
    name: rule.name,
    triggerType: rule.triggerType,
    conditionConfig: rule.conditionConfig,
    severity: rule.severity,
    isActive: rule.isActive,
  };
}

/**
 * Every rule of the company's active products (or of the given ones), in two queries: stored rules, and
 * the products' engine configs.
 */
export async function effectiveRules(sequelize: Sequelize, companyId: string, productIds?: string[]): Promise<EffectiveRule[]> {
  const filter = productIds ? 'AND product_id = ANY($2::uuid[])' : '';
  const bind = productIds ? [companyId, productIds] : [companyId];
  const [stored, products] = await Promise.all([
    sequelize.query<StoredRuleRow>(
      `SELECT id, product_id AS "productId", name, trigger_type AS "triggerType", condition_config AS "conditionConfig", severity,
              is_active AS "isActive"
         FROM monitoring_rules WHERE company_id = $1 ${filter} ORDER BY created_at, id`,
      { bind, type: QueryTypes.SELECT },
    ),
    sequelize.query<ProductRules>(
      `SELECT id, engine_config FROM product_models WHERE company_id = $1 ${productIds ? 'AND id = ANY($2::uuid[])' : 'AND is_active'} ORDER BY name, id`,
      { bind, type: QueryTypes.SELECT },
    ),
  ]);
  return [...stored.map(storedRule), ...products.flatMap(rulesOfProduct)];
}

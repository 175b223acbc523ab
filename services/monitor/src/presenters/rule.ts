import type { EffectiveRule } from '../rules/effective-rules';

/**
 * A monitoring rule, stored or implied by its product. `editable` is false for rules that come from the
 * product's engine_config (`source` `engine_config` or `attribute`): they change with the product.
 */
export function presentRule(r: EffectiveRule) {
  return {
    id: r.id,
    source: r.source,
    product_id: r.productId,
    name: r.name,
    trigger_type: r.triggerType,
    condition_config: r.conditionConfig,
    severity: r.severity,
    is_active: r.isActive,
    editable: r.source === 'rule',
  };
}

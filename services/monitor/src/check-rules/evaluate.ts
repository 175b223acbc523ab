/**
 * Rule evaluation as a pure function: given a product's rules, its stock, its batches and the events that
 * are live for it, decide which events to open and which to resolve. No I/O, so the evaluation rules
 * (docs/api/monitoring-and-notifications.md, "Rule conditions") are tested directly.
 *
 * THRESHOLD holds when total physical stock is below `min` or above `max`. DATE_OFFSET holds, per batch
 * with remaining stock, when its `date_field` is on or before today + `days_offset` (past dates included).
 * While an OPEN or IGNORED event exists for (rule, product, batch) and its condition holds, nothing new
 * opens; when the condition clears, that event is resolved.
 */
import type { EffectiveRule } from '../rules/effective-rules';

export interface ProductFacts {
  id: string;
  sku: string;
  name: string;
  unit: string;
  decimals: number;
  /** Total physical stock (decimal string). */
  quantity: string;
  batches: Array<{ id: string; code: string; expirationDate: string | null; quantity: string }>;
}

export interface LiveEvent {
  id: string;
  ruleId: string;
  batchId: string | null;
  status: 'OPEN' | 'IGNORED';
}

export interface EventToOpen {
  rule: EffectiveRule;
  batchId: string | null;
  message: string;
  details: Record<string, unknown>;
}

export interface Decisions {
  open: EventToOpen[];
  resolve: string[];
}

const DAY_MS = 86_400_000;

function format(quantity: number, decimals: number, unit: string): string {
  return `${quantity.toFixed(decimals)} ${unit}`;
}

/** The THRESHOLD condition, or undefined when stock is within bounds. */
function thresholdBreach(rule: EffectiveRule, product: ProductFacts): EventToOpen | undefined {
  const { min, max } = rule.conditionConfig as { min?: number; max?: number };
  const quantity = Number(product.quantity);
  const shown = format(quantity, product.decimals, product.unit);
  const label = `${product.name} (${product.sku})`;
  if (min !== undefined && quantity < min) {
    return {
      rule,
      batchId: null,
      message: `Low stock: ${label} has ${shown}, below the minimum of ${format(min, product.decimals, product.unit)}.`,
      details: { quantity, min, unit: product.unit },
    };
  }
  if (max !== undefined && quantity > max) {
    return {
      rule,
      batchId: null,
      message: `Overstock: ${label} has ${shown}, above the maximum of ${format(max, product.decimals, product.unit)}.`,
      details: { quantity, max, unit: product.unit },
    };
  }
  return undefined;
}

/** Batches with stock whose date falls within the window, one event each. */
function expiringBatches(rule: EffectiveRule, product: ProductFacts, today: Date): EventToOpen[] {
  const { days_offset: offset } = rule.conditionConfig as { date_field: string; days_offset: number };
  const todayUtc = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return product.batches
    .filter((b) => b.expirationDate !== null && Number(b.quantity) > 0)
    .map((b) => ({ batch: b, daysLeft: Math.round((Date.parse(`${b.expirationDate}T00:00:00Z`) - todayUtc) / DAY_MS) }))
    .filter(({ daysLeft }) => daysLeft <= offset)
    .map(({ batch, daysLeft }) => ({
      rule,
      batchId: batch.id,
      message:
        daysLeft < 0
          ? `Expired batch: ${batch.code} of ${product.name} (${product.sku}) expired on ${batch.expirationDate}, ${-daysLeft} day(s) ago, with ${format(Number(batch.quantity), product.decimals, product.unit)} left.`
          : `Expiring batch: ${batch.code} of ${product.name} (${product.sku}) expires on ${batch.expirationDate}, in ${daysLeft} day(s), with ${format(Number(batch.quantity), product.decimals, product.unit)} left.`,
      details: { batch_code: batch.code, expiration_date: batch.expirationDate, days_left: daysLeft, days_offset: offset, quantity: Number(batch.quantity) },
    }));
}

const key = (ruleId: string, batchId: string | null) => `${ruleId}/${batchId ?? ''}`;

export function evaluateProduct(product: ProductFacts, rules: EffectiveRule[], live: LiveEvent[], now: Date): Decisions {
  const holding: EventToOpen[] = [];
  for (const rule of rules.filter((r) => r.isActive && r.productId === product.id)) {
    if (rule.triggerType === 'THRESHOLD') {
      const breach = thresholdBreach(rule, product);
      if (breach) holding.push(breach);
    } else if (rule.triggerType === 'DATE_OFFSET') {
      holding.push(...expiringBatches(rule, product, now));
    }
  }
  const liveKeys = new Set(live.map((e) => key(e.ruleId, e.batchId)));
  const holdingKeys = new Set(holding.map((h) => key(h.rule.id, h.batchId)));
  return {
    open: holding.filter((h) => !liveKeys.has(key(h.rule.id, h.batchId))),
    resolve: live.filter((e) => !holdingKeys.has(key(e.ruleId, e.batchId))).map((e) => e.id),
  };
}

import { expect } from 'chai';
import { ProductFacts, evaluateProduct } from '../src/check-rules/evaluate';
import type { EffectiveRule } from '../src/rules/effective-rules';
import { rulesOfProduct, uuidV5 } from '../src/rules/effective-rules';

const product = (quantity: string, batches: ProductFacts['batches'] = []): ProductFacts => ({
  id: 'p1',
  sku: 'BOLT-8',
  name: 'Bolt M8',
  unit: 'pcs',
  decimals: 0,
  quantity,
  batches,
});

const rule = (triggerType: EffectiveRule['triggerType'], conditionConfig: Record<string, unknown>, id = 'r1'): EffectiveRule => ({
  id,
  source: 'rule',
  productId: 'p1',
  name: null,
  triggerType,
  conditionConfig,
  severity: 'WARNING',
  isActive: true,
});

const NOW = new Date('2030-03-10T15:00:00Z');

describe('rule evaluation (pure)', () => {
  it('opens a THRESHOLD event below min and above max, and nothing within bounds or exactly at a bound', () => {
    const bounds = rule('THRESHOLD', { min: 5, max: 50 });
    const low = evaluateProduct(product('3'), [bounds], [], NOW);
    expect(low.open).to.have.length(1);
    expect(low.open[0].message).to.equal('Low stock: Bolt M8 (BOLT-8) has 3 pcs, below the minimum of 5 pcs.');
    expect(low.open[0].details).to.deep.equal({ quantity: 3, min: 5, unit: 'pcs' });
    expect(evaluateProduct(product('51'), [bounds], [], NOW).open[0].message).to.match(/^Overstock: .* above the maximum of 50 pcs\.$/);
    for (const q of ['5', '20', '50']) expect(evaluateProduct(product(q), [bounds], [], NOW).open, q).to.deep.equal([]);
  });

  it('opens nothing new while an OPEN or IGNORED event exists, and resolves it when the condition clears', () => {
    const min = rule('THRESHOLD', { min: 5 });
    for (const status of ['OPEN', 'IGNORED'] as const) {
      const live = [{ id: 'e1', ruleId: 'r1', batchId: null, status }];
      expect(evaluateProduct(product('1'), [min], live, NOW)).to.deep.equal({ open: [], resolve: [] });
      expect(evaluateProduct(product('9'), [min], live, NOW)).to.deep.equal({ open: [], resolve: ['e1'] });
    }
  });

  it('opens one DATE_OFFSET event per batch with stock within the window, past dates included', () => {
    const expiry = rule('DATE_OFFSET', { date_field: 'expiration_date', days_offset: 7 });
    const batches = [
      { id: 'b-past', code: 'OLD', expirationDate: '2030-03-01', quantity: '2' },
      { id: 'b-today', code: 'NOW', expirationDate: '2030-03-10', quantity: '1' },
      { id: 'b-edge', code: 'EDGE', expirationDate: '2030-03-17', quantity: '4' },
      { id: 'b-late', code: 'LATE', expirationDate: '2030-03-18', quantity: '4' },
      { id: 'b-empty', code: 'EMPTY', expirationDate: '2030-03-11', quantity: '0' },
      { id: 'b-undated', code: 'NONE', expirationDate: null, quantity: '4' },
    ];
    const decisions = evaluateProduct(product('11', batches), [expiry], [], NOW);
    expect(decisions.open.map((e) => e.batchId)).to.deep.equal(['b-past', 'b-today', 'b-edge']);
    expect(decisions.open[0].message).to.include('expired on 2030-03-01, 9 day(s) ago');
    expect(decisions.open[2].details).to.include({ days_left: 7, days_offset: 7, batch_code: 'EDGE' });
    const live = [{ id: 'e-late', ruleId: 'r1', batchId: 'b-late', status: 'OPEN' as const }];
    expect(evaluateProduct(product('11', batches), [expiry], live, NOW).resolve).to.deep.equal(['e-late']);
  });

  it('ignores inactive rules and resolves events of rules that no longer exist', () => {
    const inactive = { ...rule('THRESHOLD', { min: 5 }), isActive: false };
    const live = [{ id: 'e-gone', ruleId: 'deleted-rule', batchId: null, status: 'OPEN' as const }];
    expect(evaluateProduct(product('0'), [inactive], live, NOW)).to.deep.equal({ open: [], resolve: ['e-gone'] });
  });
});

describe('rules implied by a product', () => {
  it('makes stable virtual THRESHOLD rules of min_stock, min_threshold and max_stock, and keeps engine_config rules', () => {
    const engine_config = {
      min_stock: 5,
      max_stock: 100,
      monitoring_rules: [
        { trigger_type: 'DATE_OFFSET' as const, condition_config: { date_field: 'expiration_date', days_offset: 3 }, severity: 'CRITICAL' as const },
      ],
    };
    const rules = rulesOfProduct({ id: 'p1', engine_config });
    expect(rules.map((r) => [r.source, r.name, r.conditionConfig])).to.deep.equal([
      ['attribute', 'min_stock', { min: 5 }],
      ['attribute', 'max_stock', { max: 100 }],
      ['engine_config', 'engine_config.monitoring_rules.0', { date_field: 'expiration_date', days_offset: 3 }],
    ]);
    expect(rules[0].id).to.equal(uuidV5('p1:min_stock'));
    expect(rulesOfProduct({ id: 'p1', engine_config }).map((r) => r.id)).to.deep.equal(rules.map((r) => r.id));
    expect(rules[0].id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rulesOfProduct({ id: 'p2', engine_config })[0].id).to.not.equal(rules[0].id);
  });
});

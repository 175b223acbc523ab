/**
 * /api/v1/monitoring-rules/: stored rules (create, read, update, delete) and the validation matrix of their
 * condition shapes; the rules a product's engine_config implies (min_stock / min_threshold / max_stock and
 * monitoring_rules) listed beside them with stable ids, read-only (409 rule_managed_by_product).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { del, get, patch, post } from '../../support/api';
import { expectErrorShape, expectNotFound, expectValidationError } from '../../support/assertions';
import { TestCompany, TestProduct, buildCompany, buildProduct, buildUser } from '../../support/builders';
import { count, row } from '../../support/sql';

const RULE_KEYS = ['id', 'source', 'product_id', 'name', 'trigger_type', 'condition_config', 'severity', 'is_active', 'editable'];

const rulesOf = (company: TestCompany) => count('SELECT count(*) FROM monitoring_rules WHERE company_id = $1', [company.id]);

async function listRules(company: TestCompany, query = '') {
  const res = await get(`/api/v1/monitoring-rules/?page_size=500${query}`, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body as { count: number; next: string | null; previous: string | null; results: Array<Record<string, any>> };
}

describe('/api/v1/monitoring-rules/: stored rules', () => {
  let company: TestCompany;
  let product: TestProduct;
  before(async () => {
    company = await buildCompany();
    product = await buildProduct(company);
  });

  it('creates a THRESHOLD rule (201) with WARNING and is_active true by default, and shows it editable', async () => {
    const res = await post(
      '/api/v1/monitoring-rules/',
      { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { min: 5, max: 100 }, name: 'Keep between 5 and 100' },
      { token: company.token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.have.all.keys(...RULE_KEYS);
    expect(res.body).to.deep.include({
      source: 'rule',
      product_id: product.id,
      name: 'Keep between 5 and 100',
      trigger_type: 'THRESHOLD',
      condition_config: { min: 5, max: 100 },
      severity: 'WARNING',
      is_active: true,
      editable: true,
    });
    const stored = await row('SELECT company_id, product_id, trigger_type, condition_config, severity, is_active FROM monitoring_rules WHERE id = $1', [
      res.body.id,
    ]);
    expect(stored).to.deep.equal({
      company_id: company.id,
      product_id: product.id,
      trigger_type: 'THRESHOLD',
      condition_config: { min: 5, max: 100 },
      severity: 'WARNING',
      is_active: true,
    });

    const one = await get(`/api/v1/monitoring-rules/${res.body.id}/`, { token: company.token });
    expect(one.status).to.equal(200);
    expect(one.body).to.deep.equal(res.body);
  });

  it('creates a DATE_OFFSET rule on a BATCH product, and a THRESHOLD rule with only max', async () => {
    const batchProduct = await buildProduct(company, { profile: 'BATCH' });
    const dated = await post(
      '/api/v1/monitoring-rules/',
      { product_id: batchProduct.id, trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date', days_offset: 14 }, severity: 'CRITICAL' },
      { token: company.token },
    );
    expect(dated.status, JSON.stringify(dated.body)).to.equal(201);
    expect(dated.body).to.deep.include({
      trigger_type: 'DATE_OFFSET',
      condition_config: { date_field: 'expiration_date', days_offset: 14 },
      severity: 'CRITICAL',
      name: null,
    });

    const maxOnly = await post(
      '/api/v1/monitoring-rules/',
      { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { max: 10 } },
      { token: company.token },
    );
    expect(maxOnly.status, JSON.stringify(maxOnly.body)).to.equal(201);
    expect(maxOnly.body.condition_config).to.deep.equal({ max: 10 });
  });

  it('lets a member create, update and delete rules too (rules are catalog data, not administration)', async () => {
    const member = await buildUser(company);
    const created = await post(
      '/api/v1/monitoring-rules/',
      { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { min: 1 } },
      { token: member.token },
    );
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const changed = await patch(`/api/v1/monitoring-rules/${created.body.id}/`, { severity: 'INFO' }, { token: member.token });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    expect((await del(`/api/v1/monitoring-rules/${created.body.id}/`, { token: member.token })).status).to.equal(204);
  });

  it('updates severity, name, is_active and the condition (checked against the stored trigger type)', async () => {
    const created = await post(
      '/api/v1/monitoring-rules/',
      { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { min: 5 } },
      { token: company.token },
    );
    const res = await patch(
      `/api/v1/monitoring-rules/${created.body.id}/`,
      { severity: 'CRITICAL', name: 'Low stock', is_active: false, condition_config: { min: 2, max: 50 } },
      { token: company.token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ id: created.body.id, severity: 'CRITICAL', name: 'Low stock', is_active: false, condition_config: { min: 2, max: 50 } });
    const again = await get(`/api/v1/monitoring-rules/${created.body.id}/`, { token: company.token });
    expect(again.body).to.deep.equal(res.body);
  });

  it('refuses a PATCH that breaks the condition, changes the trigger type or product, or is empty; nothing changes', async () => {
    const created = await post(
      '/api/v1/monitoring-rules/',
      { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { min: 5 } },
      { token: company.token },
    );
    const id = created.body.id;
    const cases: Array<[unknown, string]> = [
      [{ condition_config: {} }, 'condition_config'],
      [{ condition_config: { min: 10, max: 1 } }, 'condition_config'],
      [{ condition_config: { min: -1 } }, 'condition_config.min'],
      [{ condition_config: { min: '5' } }, 'condition_config.min'],
      [{ condition_config: { min: 1, days_offset: 3 } }, 'condition_config.days_offset'],
      [{ trigger_type: 'DATE_OFFSET' }, 'trigger_type'],
      [{ product_id: randomUUID() }, 'product_id'],
      [{ severity: 'LOUD' }, 'severity'],
      [{}, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await patch(`/api/v1/monitoring-rules/${id}/`, body, { token: company.token });
      expectValidationError(res, field);
    }
    const stored = await row('SELECT condition_config, severity FROM monitoring_rules WHERE id = $1', [id]);
    expect(stored).to.deep.equal({ condition_config: { min: 5 }, severity: 'WARNING' });
  });

  it('deletes a rule (204); it is gone from the list and answers 404 afterwards', async () => {
    const created = await post(
      '/api/v1/monitoring-rules/',
      { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { min: 5 } },
      { token: company.token },
    );
    const res = await del(`/api/v1/monitoring-rules/${created.body.id}/`, { token: company.token });
    expect(res.status).to.equal(204);
    expectNotFound(await get(`/api/v1/monitoring-rules/${created.body.id}/`, { token: company.token }));
    expectNotFound(await del(`/api/v1/monitoring-rules/${created.body.id}/`, { token: company.token }));
    expectNotFound(await patch(`/api/v1/monitoring-rules/${created.body.id}/`, { severity: 'INFO' }, { token: company.token }));
    const list = await listRules(company);
    expect(list.results.map((r) => r.id)).not.to.include(created.body.id);
  });

  it('answers 404 for an unknown rule id and 400 naming id for a malformed one', async () => {
    expectNotFound(await get(`/api/v1/monitoring-rules/${randomUUID()}/`, { token: company.token }));
    expectValidationError(await get('/api/v1/monitoring-rules/not-a-uuid/', { token: company.token }), 'id');
  });
});

describe('POST /api/v1/monitoring-rules/: the validation matrix', () => {
  let company: TestCompany;
  let standard: TestProduct;
  before(async () => {
    company = await buildCompany();
    standard = await buildProduct(company);
  });

  const threshold = (config: unknown) => ({ product_id: '', trigger_type: 'THRESHOLD', condition_config: config });
  const dated = (config: unknown) => ({ product_id: '', trigger_type: 'DATE_OFFSET', condition_config: config });
  const cases: Array<{ when: string; body: Record<string, unknown>; field: string }> = [
    { when: 'a THRESHOLD condition has neither min nor max', body: threshold({}), field: 'condition_config' },
    { when: 'a THRESHOLD rule has no condition_config', body: { product_id: '', trigger_type: 'THRESHOLD' }, field: 'condition_config' },
    { when: 'min is above max', body: threshold({ min: 10, max: 5 }), field: 'condition_config' },
    { when: 'min is negative', body: threshold({ min: -1 }), field: 'condition_config.min' },
    { when: 'max is a string', body: threshold({ max: '10' }), field: 'condition_config.max' },
    { when: 'a THRESHOLD condition has an unknown key', body: threshold({ min: 1, below: 2 }), field: 'condition_config.below' },
    { when: 'a DATE_OFFSET condition lacks days_offset', body: dated({ date_field: 'expiration_date' }), field: 'condition_config.days_offset' },
    { when: 'days_offset is not an integer', body: dated({ date_field: 'expiration_date', days_offset: 1.5 }), field: 'condition_config.days_offset' },
    { when: 'date_field is not a batch date', body: dated({ date_field: 'created_at', days_offset: 3 }), field: 'condition_config.date_field' },
    { when: 'severity is not INFO, WARNING or CRITICAL', body: { ...threshold({ min: 1 }), severity: 'URGENT' }, field: 'severity' },
    { when: 'trigger_type is unknown', body: { ...threshold({ min: 1 }), trigger_type: 'ALWAYS' }, field: 'trigger_type' },
    { when: 'trigger_type is missing', body: { product_id: '', condition_config: { min: 1 } }, field: 'trigger_type' },
    { when: 'product_id is missing', body: { trigger_type: 'THRESHOLD', condition_config: { min: 1 } }, field: 'product_id' },
    { when: 'product_id is not a UUID', body: { ...threshold({ min: 1 }), product_id: 'abc' }, field: 'product_id' },
    { when: 'an unknown field is sent', body: { ...threshold({ min: 1 }), evaluate_every: '5m' }, field: 'evaluate_every' },
    { when: 'is_active is a string', body: { ...threshold({ min: 1 }), is_active: 'yes' }, field: 'is_active' },
    { when: 'name is 201 characters long', body: { ...threshold({ min: 1 }), name: 'x'.repeat(201) }, field: 'name' },
  ];
  for (const c of cases) {
    it(`answers 400 naming ${c.field} and creates nothing when ${c.when}`, async () => {
      const body = 'product_id' in c.body && c.body.product_id === '' ? { ...c.body, product_id: standard.id } : c.body;
      const res = await post('/api/v1/monitoring-rules/', body, { token: company.token });
      expectValidationError(res, c.field);
      expect(await rulesOf(company)).to.equal(0);
    });
  }

  it('answers 400 naming product_id and creates nothing for a DATE_OFFSET rule on a STANDARD product', async () => {
    const res = await post(
      '/api/v1/monitoring-rules/',
      { product_id: standard.id, trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date', days_offset: 7 } },
      { token: company.token },
    );
    expectValidationError(res, 'product_id');
    expect(res.body.details.product_id).to.match(/BATCH/);
    expect(await rulesOf(company)).to.equal(0);
  });

  it('answers 400 not_implemented and creates nothing for a CUSTOM rule', async () => {
    const res = await post(
      '/api/v1/monitoring-rules/',
      { product_id: standard.id, trigger_type: 'CUSTOM', condition_config: { expression: 'stock < 3' } },
      { token: company.token },
    );
    expectErrorShape(res, 400, 'not_implemented');
    expect(res.body.details).to.have.property('trigger_type');
    expect(await rulesOf(company)).to.equal(0);
  });

  it('answers 404 and creates nothing for a product that exists nowhere', async () => {
    const res = await post(
      '/api/v1/monitoring-rules/',
      { product_id: randomUUID(), trigger_type: 'THRESHOLD', condition_config: { min: 1 } },
      { token: company.token },
    );
    expectNotFound(res);
    expect(await rulesOf(company)).to.equal(0);
  });
});

describe('/api/v1/monitoring-rules/: rules implied by the product', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
  });

  const config = {
    engine_type: 'counter',
    min_stock: 5,
    max_stock: 100,
    monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: { min: 2 }, severity: 'CRITICAL' }],
  };

  it('lists min_stock, max_stock and engine_config rules beside stored ones, read-only, with the same ids on every read', async () => {
    const product = await buildProduct(company, { engine_config: config });
    const stored = await post(
      '/api/v1/monitoring-rules/',
      { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { max: 80 } },
      { token: company.token },
    );
    const first = await listRules(company, `&product_id=${product.id}`);
    expect(first.count).to.equal(4);
    for (const rule of first.results) expect(rule).to.have.all.keys(...RULE_KEYS);
    const bySource = (source: string) => first.results.filter((r) => r.source === source);
    expect(bySource('rule').map((r) => r.id)).to.deep.equal([stored.body.id]);
    expect(bySource('rule')[0].editable).to.equal(true);
    expect(bySource('attribute').map((r) => [r.name, r.trigger_type, r.condition_config, r.severity, r.editable])).to.have.deep.members([
      ['min_stock', 'THRESHOLD', { min: 5 }, 'WARNING', false],
      ['max_stock', 'THRESHOLD', { max: 100 }, 'WARNING', false],
    ]);
    expect(bySource('engine_config').map((r) => [r.trigger_type, r.condition_config, r.severity, r.editable])).to.deep.equal([
      ['THRESHOLD', { min: 2 }, 'CRITICAL', false],
    ]);

    const second = await listRules(company, `&product_id=${product.id}`);
    expect(second.results.map((r) => r.id)).to.deep.equal(first.results.map((r) => r.id));
    for (const rule of first.results) {
      const one = await get(`/api/v1/monitoring-rules/${rule.id}/`, { token: company.token });
      expect(one.status, JSON.stringify(one.body)).to.equal(200);
      expect(one.body).to.deep.equal(rule);
    }
  });

  it('gives each product its own ids, and keeps a rule id when the product changes its threshold value', async () => {
    const a = await buildProduct(company, { engine_config: config });
    const b = await buildProduct(company, { engine_config: config });
    const idsA = (await listRules(company, `&product_id=${a.id}`)).results.map((r) => r.id);
    const idsB = (await listRules(company, `&product_id=${b.id}`)).results.map((r) => r.id);
    expect(idsA).to.have.length(3);
    expect(idsA).to.not.include.members(idsB.slice(0, 1));
    expect(new Set([...idsA, ...idsB]).size).to.equal(6);

    const minRule = (await listRules(company, `&product_id=${a.id}`)).results.find((r) => r.name === 'min_stock')!;
    const changed = await patch(`/api/v1/product-models/${a.id}/`, { engine_config: { ...config, min_stock: 7 } }, { token: company.token });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    const after = (await listRules(company, `&product_id=${a.id}`)).results.find((r) => r.name === 'min_stock')!;
    expect(after.id).to.equal(minRule.id);
    expect(after.condition_config).to.deep.equal({ min: 7 });

    const dropped = await patch(`/api/v1/product-models/${a.id}/`, { engine_config: { engine_type: 'counter' } }, { token: company.token });
    expect(dropped.status, JSON.stringify(dropped.body)).to.equal(200);
    expect((await listRules(company, `&product_id=${a.id}`)).count).to.equal(0);
    expectNotFound(await get(`/api/v1/monitoring-rules/${minRule.id}/`, { token: company.token }));
  });

  it('answers 409 rule_managed_by_product to PATCH and DELETE of an implied rule, and changes nothing', async () => {
    const product = await buildProduct(company, { engine_config: config });
    const rules = (await listRules(company, `&product_id=${product.id}`)).results;
    expect(rules).to.have.length(3);
    for (const rule of rules) {
      const changed = await patch(`/api/v1/monitoring-rules/${rule.id}/`, { severity: 'INFO' }, { token: company.token });
      expectErrorShape(changed, 409, 'rule_managed_by_product');
      expect(changed.body.error).to.match(/engine_config/);
      expect(changed.body.details).to.deep.equal({ source: rule.source, product_id: product.id });
      expectErrorShape(await del(`/api/v1/monitoring-rules/${rule.id}/`, { token: company.token }), 409, 'rule_managed_by_product');
    }
    const after = (await listRules(company, `&product_id=${product.id}`)).results;
    expect(after).to.deep.equal(rules);
    const stored = await row<{ engine_config: Record<string, unknown> }>('SELECT engine_config FROM product_models WHERE id = $1', [product.id]);
    expect(stored.engine_config).to.deep.include({ min_stock: 5, max_stock: 100 });
  });

  it('lists min_threshold as a THRESHOLD rule too, and a BATCH product’s DATE_OFFSET engine rule', async () => {
    const product = await buildProduct(company, {
      profile: 'BATCH',
      engine_config: {
        engine_type: 'batch',
        min_threshold: 3,
        monitoring_rules: [{ trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date', days_offset: 30 } }],
      },
    });
    const rules = (await listRules(company, `&product_id=${product.id}`)).results;
    expect(rules.map((r) => [r.source, r.name, r.trigger_type, r.condition_config, r.severity])).to.have.deep.members([
      ['attribute', 'min_threshold', 'THRESHOLD', { min: 3 }, 'WARNING'],
      ['engine_config', 'engine_config.monitoring_rules.0', 'DATE_OFFSET', { date_field: 'expiration_date', days_offset: 30 }, 'WARNING'],
    ]);
  });
});

describe('GET /api/v1/monitoring-rules/: filters and pages', () => {
  let company: TestCompany;
  let standard: TestProduct;
  let batch: TestProduct;
  before(async () => {
    company = await buildCompany();
    standard = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
    batch = await buildProduct(company, { profile: 'BATCH' });
    await post('/api/v1/monitoring-rules/', { product_id: standard.id, trigger_type: 'THRESHOLD', condition_config: { max: 9 } }, { token: company.token });
    await post(
      '/api/v1/monitoring-rules/',
      { product_id: batch.id, trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date', days_offset: 0 } },
      { token: company.token },
    );
  });

  it('lists every rule of the company', async () => {
    const all = await listRules(company);
    expect(all.count).to.equal(3);
    expect(all.results.map((r) => r.product_id)).to.have.members([standard.id, standard.id, batch.id]);
  });

  it('filters by product_id, trigger_type and source', async () => {
    expect((await listRules(company, `&product_id=${batch.id}`)).results.map((r) => r.trigger_type)).to.deep.equal(['DATE_OFFSET']);
    expect((await listRules(company, '&trigger_type=THRESHOLD')).count).to.equal(2);
    expect((await listRules(company, '&trigger_type=DATE_OFFSET')).count).to.equal(1);
    expect((await listRules(company, '&source=attribute')).results.map((r) => r.name)).to.deep.equal(['min_stock']);
    expect((await listRules(company, '&source=rule')).count).to.equal(2);
    expect((await listRules(company, '&source=engine_config')).count).to.equal(0);
  });

  it('filters by is_active (implied rules are always active)', async () => {
    const stored = (await listRules(company, '&source=rule')).results[0];
    expect((await patch(`/api/v1/monitoring-rules/${stored.id}/`, { is_active: false }, { token: company.token })).status).to.equal(200);
    expect((await listRules(company, '&is_active=false')).results.map((r) => r.id)).to.deep.equal([stored.id]);
    expect((await listRules(company, '&is_active=true')).count).to.equal(2);
    expect((await patch(`/api/v1/monitoring-rules/${stored.id}/`, { is_active: true }, { token: company.token })).status).to.equal(200);
  });

  it('pages with count, next and previous', async () => {
    const first = await get('/api/v1/monitoring-rules/?page_size=2', { token: company.token });
    expect(first.status).to.equal(200);
    expect(first.body.count).to.equal(3);
    expect(first.body.results).to.have.length(2);
    expect(first.body.previous).to.equal(null);
    expect(first.body.next)
      .to.be.a('string')
      .and.match(/page=2/);
    const second = await get('/api/v1/monitoring-rules/?page_size=2&page=2', { token: company.token });
    expect(second.body.results).to.have.length(1);
    expect(second.body.next).to.equal(null);
    const ids = [...first.body.results, ...second.body.results].map((r: { id: string }) => r.id);
    expect(new Set(ids).size).to.equal(3);
  });

  it('refuses unknown filters and values (400 naming them), and answers 404 for a product that exists nowhere', async () => {
    expectValidationError(await get('/api/v1/monitoring-rules/?trigger_type=CUSTOM', { token: company.token }), 'trigger_type');
    expectValidationError(await get('/api/v1/monitoring-rules/?source=api', { token: company.token }), 'source');
    expectValidationError(await get('/api/v1/monitoring-rules/?colour=red', { token: company.token }), 'colour');
    expectNotFound(await get(`/api/v1/monitoring-rules/?product_id=${randomUUID()}`, { token: company.token }));
  });
});

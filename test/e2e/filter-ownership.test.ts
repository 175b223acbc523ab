/**
 * Ids in list filters are checked like ids in paths (docs/api/conventions.md "Company isolation"): on every list of every
 * service, a filter naming another company's record answers 403 `access_denied` (with nothing of that record),
 * an id that names nothing answers 404, and the company's own record answers 200. The table below names every
 * id filter; the last tests fail when a list gains an id filter that neither the route's ownedFilters step nor
 * this table covers.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ApiResponse, get, post } from '../support/api';
import { expectAccessDenied, expectNotFound } from '../support/assertions';
import { TestCompany, buildCompany, buildLocation, buildProduct, unique } from '../support/builders';
import { serviceRoutes } from '../support/express-routes';
import { openApiDocument } from '../support/openapi';
import { buildChannel, buildEvent } from './monitor/helpers';

/** One record of each kind a filter can name, all of one company. */
interface Records {
  company: TestCompany;
  product: string;
  batchProduct: string;
  serializedProduct: string;
  location: string;
  batch: string;
  item: string;
  workOrder: string;
  rule: string;
  virtualRule: string;
  /** A rule id only the event log still names (its rule is gone). */
  goneRule: string;
  event: string;
  channel: string;
  /** The company's admin user: who the audit log names as the actor of its changes. */
  user: string;
  /** Names and ids no answer to another company may show. */
  secrets: string[];
}

async function buildRecords(): Promise<Records> {
  const company = await buildCompany();
  const productName = unique('Secret product');
  const product = await buildProduct(company, { name: productName, engine_config: { engine_type: 'counter', min_stock: 3 } });
  const batchProduct = await buildProduct(company, { profile: 'BATCH' });
  const serializedProduct = await buildProduct(company, { profile: 'SERIALIZED' });
  const location = await buildLocation(company);
  const auth = { token: company.token };
  const ok = (res: ApiResponse, status = 201) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    return res.body;
  };
  const batch = ok(await post('/api/v1/batches/', { product_id: batchProduct.id, code: unique('LOT') }, auth));
  const item = ok(await post('/api/v1/items/', { product_id: serializedProduct.id, location_id: location.id, serial_number: unique('SN') }, auth));
  const workOrder = ok(await post('/api/v1/work-orders/', { number: unique('WO'), title: 'secret order', product_id: product.id }, auth));
  const rule = ok(await post('/api/v1/monitoring-rules/', { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { max: 50 } }, auth));
  const virtual = ok(await get(`/api/v1/monitoring-rules/?product_id=${product.id}&source=attribute`, auth), 200);
  const event = await buildEvent(company, product);
  const channel = await buildChannel(company, { kind: 'EMAIL', name: unique('Secret channel') });
  return {
    company,
    product: product.id,
    batchProduct: batchProduct.id,
    serializedProduct: serializedProduct.id,
    location: location.id,
    batch: batch.id,
    item: item.id,
    workOrder: workOrder.id,
    rule: rule.id,
    virtualRule: virtual.results[0].id,
    goneRule: event.ruleId,
    event: event.id,
    channel: channel.id,
    user: company.admin.id,
    secrets: [company.id, product.id, productName],
  };
}

interface FilterCase {
  /** The list and the filter, as the table of contents of the suite: `GET /api/v1/stock/ product_id`. */
  path: string;
  filter: string;
  /** Which record of a company the filter names in this case. */
  record: keyof Omit<Records, 'company' | 'secrets'>;
  /** Other query parameters the list needs (its own company's records), or that change what the id names. */
  with?: (own: Records) => Record<string, string>;
  /** A variant of the same filter (another record kind it may name). */
  variant?: string;
  auth: 'bearer' | 'key';
}

const CASES: FilterCase[] = [
  { path: '/api/v1/stock/', filter: 'product_id', record: 'product', auth: 'bearer' },
  { path: '/api/v1/stock/', filter: 'location_id', record: 'location', auth: 'bearer' },
  { path: '/api/v1/stock/history/', filter: 'product_id', record: 'product', auth: 'bearer' },
  { path: '/api/v1/stock/history/', filter: 'location_id', record: 'location', auth: 'bearer', with: (own) => ({ product_id: own.product }) },
  { path: '/api/v1/movements/', filter: 'product_id', record: 'product', auth: 'bearer' },
  { path: '/api/v1/movements/', filter: 'location_id', record: 'location', auth: 'bearer' },
  { path: '/api/v1/movements/', filter: 'batch_id', record: 'batch', auth: 'bearer' },
  { path: '/api/v1/export/stock/', filter: 'product_id', record: 'product', auth: 'bearer' },
  { path: '/api/v1/export/stock/', filter: 'location_id', record: 'location', auth: 'bearer' },
  { path: '/api/v1/export/movements/', filter: 'product_id', record: 'product', auth: 'bearer' },
  { path: '/api/v1/export/movements/', filter: 'location_id', record: 'location', auth: 'bearer' },
  { path: '/api/v1/export/movements/', filter: 'batch_id', record: 'batch', auth: 'bearer' },
  { path: '/api/v1/items/', filter: 'product_id', record: 'serializedProduct', auth: 'bearer' },
  { path: '/api/v1/items/', filter: 'location_id', record: 'location', auth: 'bearer' },
  { path: '/api/v1/batches/', filter: 'product_id', record: 'batchProduct', auth: 'bearer' },
  { path: '/api/v1/work-orders/', filter: 'product_id', record: 'product', auth: 'bearer' },
  { path: '/api/v1/widget/', filter: 'location_id', record: 'location', auth: 'key' },
  { path: '/api/v1/widget/items/', filter: 'product_id', record: 'serializedProduct', auth: 'key' },
  { path: '/api/v1/widget/items/', filter: 'location_id', record: 'location', auth: 'key', with: (own) => ({ product_id: own.serializedProduct }) },
  { path: '/api/v1/widget/batches/', filter: 'product_id', record: 'batchProduct', auth: 'key' },
  { path: '/api/v1/widget/batches/', filter: 'location_id', record: 'location', auth: 'key', with: (own) => ({ product_id: own.batchProduct }) },
  { path: '/api/v1/widget/location_inventory/', filter: 'location_id', record: 'location', auth: 'key' },
  { path: '/api/v1/qr-codes/', filter: 'target_id', record: 'product', auth: 'bearer', variant: 'a product, no target_type' },
  { path: '/api/v1/qr-codes/', filter: 'target_id', record: 'item', auth: 'bearer', variant: 'an item, no target_type' },
  { path: '/api/v1/qr-codes/', filter: 'target_id', record: 'workOrder', auth: 'bearer', variant: 'a work order, no target_type' },
  {
    path: '/api/v1/qr-codes/',
    filter: 'target_id',
    record: 'product',
    auth: 'bearer',
    variant: 'target_type=PRODUCT',
    with: () => ({ target_type: 'PRODUCT' }),
  },
  { path: '/api/v1/qr-codes/', filter: 'target_id', record: 'item', auth: 'bearer', variant: 'target_type=ITEM', with: () => ({ target_type: 'ITEM' }) },
  {
    path: '/api/v1/qr-codes/',
    filter: 'target_id',
    record: 'workOrder',
    auth: 'bearer',
    variant: 'target_type=WORK_ORDER',
    with: () => ({ target_type: 'WORK_ORDER' }),
  },
  { path: '/api/v1/monitoring-rules/', filter: 'product_id', record: 'product', auth: 'bearer' },
  { path: '/api/v1/events/', filter: 'product_id', record: 'product', auth: 'bearer' },
  { path: '/api/v1/events/', filter: 'rule_id', record: 'rule', auth: 'bearer', variant: 'a stored rule' },
  { path: '/api/v1/events/', filter: 'rule_id', record: 'virtualRule', auth: 'bearer', variant: 'a rule its product implies' },
  { path: '/api/v1/events/', filter: 'rule_id', record: 'goneRule', auth: 'bearer', variant: 'a rule only events still name' },
  { path: '/api/v1/notification-deliveries/', filter: 'channel_id', record: 'channel', auth: 'bearer' },
  { path: '/api/v1/notification-deliveries/', filter: 'event_id', record: 'event', auth: 'bearer' },
  { path: '/api/v1/audit-log/', filter: 'actor', record: 'user', auth: 'bearer' },
  { path: '/api/v1/audit-log/', filter: 'resource_id', record: 'product', auth: 'bearer' },
];

describe('id filters of every list are checked like path ids', () => {
  let a: Records;
  let b: Records;
  before(async function () {
    this.timeout(60_000);
    [a, b] = await Promise.all([buildRecords(), buildRecords()]);
  });

  /** GET `c.path` as `caller`, with `c.filter` set to `id` and the case's other parameters of the caller's own. */
  const list = (c: FilterCase, caller: Records, id: string) => {
    const params = new URLSearchParams({ ...(c.with?.(caller) ?? {}), [c.filter]: id });
    const auth = c.auth === 'key' ? { apiKey: caller.company.apiKey } : { token: caller.company.token };
    return get(`${c.path}?${params.toString()}`, auth);
  };

  for (const c of CASES) {
    const name = `GET ${c.path} ${c.filter}${c.variant ? ` (${c.variant})` : ''}`;
    describe(name, () => {
      it('answers 200 for a record of the caller’s company', async () => {
        const res = await list(c, a, a[c.record]);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
      });

      it('answers 403 access_denied, showing nothing of it, for another company’s record', async () => {
        expectAccessDenied(await list(c, a, b[c.record]), b.secrets);
      });

      it('answers 404 for an id that names nothing', async () => {
        expectNotFound(await list(c, a, randomUUID()));
      });
    });
  }

  it('answers an empty page for a target_id of the caller’s own record when target_type names another kind', async () => {
    for (const qs of [`target_type=ITEM&target_id=${a.product}`, `target_type=PRODUCT&target_id=${a.workOrder}`]) {
      const res = await get(`/api/v1/qr-codes/?${qs}`, { token: a.company.token });
      expect(res.status, qs).to.equal(200);
      expect(res.body).to.deep.include({ count: 0, results: [] });
    }
  });

  it('covers every id filter of every documented list (query parameters in uuid format)', () => {
    const documented: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(openApiDocument().paths)) {
      for (const p of item.get?.parameters ?? []) if (p.in === 'query' && p.schema?.format === 'uuid') documented.push(`${path} ${p.name}`);
    }
    const tested = [...new Set(CASES.map((c) => `${c.path} ${c.filter}`))];
    expect(documented.sort()).to.deep.equal(tested.sort());
  });

  it('has an ownedFilters step on every route for exactly the uuid filters its query schema takes', () => {
    for (const [service, routes] of Object.entries(serviceRoutes())) {
      for (const route of routes) {
        const query = route.requestSchemas?.query?.describe() as { keys?: Record<string, { type: string; rules?: Array<{ name: string }> }> } | undefined;
        const uuidFilters = Object.entries(query?.keys ?? {})
          .filter(([, schema]) => schema.type === 'string' && schema.rules?.some((r) => r.name === 'guid'))
          .map(([filter]) => filter);
        expect([...(route.ownedFilters ?? [])].sort(), `${service}: ${route.method.toUpperCase()} ${route.path}`).to.deep.equal(uuidFilters.sort());
      }
    }
  });
});

/**
 * The metrics of every service (docs/operations/metrics.md) on the run's test system: each service serves its
 * own at /metrics on its own port, the gateway on its metrics listener and never on the public port, and the
 * numbers move under load: bookings made through the gateway show in the bookings counter and in both the
 * gateway's and the inventory's request histograms, labelled by the documented route template, never the path.
 */
import { expect } from 'chai';
import { HTTP_DURATION_METRIC } from '@pi/common';
import { get, post } from '../../support/api';
import { addStock, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { system } from '../../support/hooks';
import { Scrape, scrape } from '../../support/metrics';

const SERVICES = ['gateway', 'inventory', 'qr', 'monitor', 'notifier'] as const;
type Service = (typeof SERVICES)[number];

const metricsUrlOf = (service: Service) => (service === 'gateway' ? system().gateway.metricsUrl : system().serviceUrls[service]);
const scrapeOf = (service: Service) => scrape(metricsUrlOf(service));

const TRANSACTION_ROUTE = '/api/v1/widget/{id}/transaction/';

describe('metrics', () => {
  it('are served by every service at its own /metrics, labelled with the service, with request and database pool metrics', async () => {
    // A readiness probe each (a database query), so every service has measured a request and holds a connection.
    for (const service of SERVICES.filter((s) => s !== 'gateway')) expect((await fetch(`${system().serviceUrls[service]}/readyz`)).status).to.equal(200);
    expect((await get('/readyz')).status).to.equal(200);
    for (const service of SERVICES) {
      const s = await scrapeOf(service);
      expect(s.families(), service).to.include.members([
        HTTP_DURATION_METRIC,
        'db_pool_size',
        'db_pool_idle',
        'db_pool_used',
        'db_pool_waiting',
        'db_pool_max',
      ]);
      expect(new Set(s.samples.map((x) => x.labels.service)), `${service}: every series names its service`).to.deep.equal(new Set([service]));
      expect(s.value('db_pool_max'), `${service} pool limit`).to.equal(20);
      expect(s.value('db_pool_size'), `${service} pool size`).to.be.at.least(1);
      expect(s.value('db_pool_idle') + s.value('db_pool_used'), `${service}: idle + used = size`).to.equal(s.value('db_pool_size'));
      expect(s.value(`${HTTP_DURATION_METRIC}_count`, { route: '/readyz', method: 'GET', status_code: '200' }), `${service} /readyz`).to.be.at.least(1);
    }
    expect((await scrapeOf('inventory')).families()).to.include('inventory_bookings_total');
    // The notifier's own (its worker's and the queue's) are measured in processes.test.ts, on a real notifier.
    expect((await scrapeOf('monitor')).families()).to.include.members(['check_rules_last_run_timestamp_seconds', 'check_rules_last_run_results']);
  });

  it('are never reachable through the public gateway', async () => {
    for (const path of ['/metrics', '/metrics/', '/api/v1/metrics/', '/api/v1/widget/metrics/']) {
      const res = await fetch(`${system().url}${path}`);
      const text = await res.text();
      expect(res.status, path).to.be.oneOf([401, 404]);
      expect(text, path).to.not.include('http_request_duration_seconds');
    }
    // The metrics listener answers /metrics and nothing else: not the API.
    const api = await fetch(`${system().gateway.metricsUrl}/api/v1/users/`);
    expect(api.status).to.equal(404);
    expect(await api.json()).to.deep.include({ code: 'not_found' });
  });

  it('count N bookings through the gateway in the bookings counter and in both request histograms, by route template', async function () {
    this.timeout(60_000);
    const company = await buildCompany();
    const location = await buildLocation(company);
    const product = await buildProduct(company);
    const N = 7;
    const before = { gateway: await scrapeOf('gateway'), inventory: await scrapeOf('inventory') };
    for (let i = 0; i < N; i++) await addStock(company, product.id, location.id, 1);
    // A refusal is counted apart, under its error code.
    const refused = await post(
      `/api/v1/widget/${product.id}/transaction/`,
      { operation: 'subtract', quantity: 1000, location_id: location.id, reason: 'too much' },
      { apiKey: company.apiKey },
    );
    expect(refused.status).to.equal(409);
    const after = { gateway: await scrapeOf('gateway'), inventory: await scrapeOf('inventory') };

    const grew = (service: 'gateway' | 'inventory', name: string, labels: Record<string, string>) =>
      after[service].value(name, labels) - before[service].value(name, labels);
    expect(grew('inventory', 'inventory_bookings_total', { kind: 'add', outcome: 'booked' })).to.equal(N);
    expect(grew('inventory', 'inventory_bookings_total', { kind: 'subtract', outcome: 'insufficient_stock' })).to.equal(1);
    for (const service of ['gateway', 'inventory'] as const) {
      const labels = { method: 'POST', route: TRANSACTION_ROUTE, status_code: '200' };
      expect(grew(service, `${HTTP_DURATION_METRIC}_count`, labels), `${service} requests`).to.equal(N);
      expect(grew(service, `${HTTP_DURATION_METRIC}_bucket`, { ...labels, le: '+Inf' }), `${service} +Inf bucket`).to.equal(N);
      expect(grew(service, `${HTTP_DURATION_METRIC}_count`, { ...labels, status_code: '409' }), `${service} refusal`).to.equal(1);
      expect(after[service].value(`${HTTP_DURATION_METRIC}_sum`, labels), `${service} time spent`).to.be.greaterThan(0);
      assertBoundedRoutes(after[service], [product.id, location.id, company.id]);
    }
  });

  it('label a path that reaches no route `unmatched`, whatever its spelling', async () => {
    const before = await scrapeOf('gateway');
    const paths = ['/nothing-here/1', '/nothing-here/2', '/api/v1/widget/x/y/z/', '/api//v1/users/'];
    for (const path of paths) expect((await fetch(`${system().url}${path}`)).status, path).to.equal(404);
    const after = await scrapeOf('gateway');
    const labels = { route: 'unmatched', status_code: '404', method: 'GET' };
    expect(after.value(`${HTTP_DURATION_METRIC}_count`, labels) - before.value(`${HTTP_DURATION_METRIC}_count`, labels)).to.equal(paths.length);
    assertBoundedRoutes(after, ['nothing-here', 'x/y/z']);
  });
});

/** Every route label is a template (or a probe, or `unmatched`): never a raw path carrying one of `ids`. */
function assertBoundedRoutes(s: Scrape, ids: string[]) {
  const routes = new Set(s.find(`${HTTP_DURATION_METRIC}_count`).map((x) => x.labels.route));
  for (const route of routes) {
    for (const id of ids) expect(route, 'a route label carries an id').to.not.include(id);
    expect(route === 'unmatched' || route.startsWith('/'), route).to.equal(true);
  }
}

/**
 * The metrics of the five services as real processes (their dist/src/main.js, as the image runs them), with
 * METRICS_TOKEN set and the gateway's metrics listener on (docs/operations/metrics.md): every process answers
 * its token only, the gateway never on its public port; the notifier's queue gauges show jobs waiting behind a
 * slow delivery and its outcome counter moves once a real receiver got the webhook; check_rules, run as the
 * real command, shows in the monitor's gauges; and every metric the Grafana dashboard queries is one the
 * services expose.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { freePort } from '@pi/db';
import { DeliveryQueue } from '@pi/notify';
import { post } from '../../support/api';
import { buildCompany, buildProduct } from '../../support/builders';
import { system, testDatabaseUrl } from '../../support/hooks';
import { Scrape, scrape } from '../../support/metrics';
import { ROOT, runToExit } from '../../support/processes';
import { Receiver, startReceiver } from '../../support/receiver';
import { CHECK_RULES_ENTRY, ServiceName, ServiceProcesses, startServiceProcesses } from '../../support/service-processes';
import { eventually, sleep } from '../../support/wait';
import {
  REDIS_URL,
  TestChannel,
  buildTenant,
  createChannel,
  createDelivery,
  deliverySettings,
  dropChannels,
  reload,
  requireRedis,
  uniqueQueue,
} from '../notify/fixtures';

const SERVICES: ServiceName[] = ['gateway', 'inventory', 'qr', 'monitor', 'notifier'];
export const DASHBOARD = path.join(ROOT, 'deploy/grafana/pi-inventory.json');

/** PromQL words that are not metric names. */
const PROMQL_WORDS = new Set([
  'sum',
  'max',
  'min',
  'avg',
  'count',
  'by',
  'without',
  'rate',
  'irate',
  'increase',
  'histogram_quantile',
  'time',
  'on',
  'ignoring',
  'and',
  'or',
  'unless',
]);

/** The metric names of a PromQL expression: quoted strings, label matchers, ranges and `by (…)` lists left out. */
export function metricNamesOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b/g)].map((m) => m[0]).filter((w) => !PROMQL_WORDS.has(w) && !/^\d/.test(w));
}

/** The family a sample name belongs to (a histogram's `_bucket`, `_count`, `_sum`). */
const familyOf = (name: string, families: Set<string>) => (families.has(name) ? name : name.replace(/_(bucket|count|sum)$/, ''));

describe('metrics of the services as processes', function () {
  this.timeout(120_000);
  const token = randomBytes(24).toString('hex');
  const names = uniqueQueue();
  const settings = () => deliverySettings({ SECRET_ENCRYPTION_KEY: system().secretEncryptionKey });
  const channels: TestChannel[] = [];
  let services: ServiceProcesses;
  let receiver: Receiver;
  let gatewayMetricsUrl: string;
  let queue: DeliveryQueue;

  before(async function () {
    await requireRedis(this, 'metrics of the services as processes');
    const metricsPort = await freePort();
    gatewayMetricsUrl = `http://127.0.0.1:${metricsPort}`;
    const all = { METRICS_TOKEN: token };
    const delivery = { REDIS_URL, DELIVERY_QUEUE_NAME: names.name, DELIVERY_QUEUE_PREFIX: names.prefix, ALLOW_LOOPBACK_WEBHOOKS: 'true' };
    services = await startServiceProcesses(
      SERVICES,
      { GATEWAY_METRICS_PORT: String(metricsPort) },
      {
        inventory: all,
        qr: all,
        monitor: { ...all, ...delivery },
        // One job at a time, so that jobs queued behind a slow one wait.
        notifier: { ...all, ...delivery, NOTIFIER_CONCURRENCY: '1' },
        gateway: all,
      },
    );
    receiver = await startReceiver();
    queue = new DeliveryQueue(REDIS_URL, names);
  });

  after(async () => {
    await services?.stop();
    await receiver?.close();
    await queue?.queue.obliterate({ force: true }).catch(() => {});
    await queue?.close();
    await dropChannels(channels);
  });

  const metricsUrlOf = (service: ServiceName) => (service === 'gateway' ? gatewayMetricsUrl : services.urls[service]!);
  const scrapeOf = (service: ServiceName) => scrape(metricsUrlOf(service), token);

  it('serve /metrics to METRICS_TOKEN only, on each service’s own port and the gateway’s metrics listener, never on the public port', async () => {
    for (const service of SERVICES) {
      const url = `${metricsUrlOf(service)}/metrics`;
      expect((await fetch(url)).status, `${service} without the token`).to.equal(401);
      const wrong = await fetch(url, { headers: { authorization: `Bearer ${randomBytes(24).toString('hex')}` } });
      expect(wrong.status, `${service} with another token`).to.equal(401);
      expect(await wrong.json()).to.deep.include({ code: 'authentication_failed' });
      const s = await scrapeOf(service);
      expect(s.families(), service).to.include.members([
        'http_request_duration_seconds',
        'db_pool_size',
        'process_cpu_seconds_total',
        'nodejs_eventloop_lag_p99_seconds',
      ]);
      expect(s.find('process_cpu_seconds_total')[0].labels).to.deep.equal({ service });
    }
    // The public port has no /metrics, with the token or without.
    for (const headers of [{}, { authorization: `Bearer ${token}` }] as Array<Record<string, string>>) {
      const res = await fetch(`${services.urls.gateway}/metrics`, { headers });
      expect(res.status).to.equal(404);
      expect(await res.text()).to.not.include('process_cpu_seconds_total');
    }
  });

  it('show jobs waiting behind a slow delivery in the queue gauges, and each delivery in the outcome counter once the receiver has it', async () => {
    const tenant = await buildTenant();
    const channel = await createChannel(tenant, settings(), { url: receiver.url });
    channels.push(channel);
    const before = await scrapeOf('notifier');
    // The first send hangs 3 s, holding the notifier's one slot; the next three wait in the queue meanwhile.
    receiver.respond = (_req, index) => ({ status: 200, body: '{"ok":true}', delayMs: index === 0 ? 3000 : 0 });
    const deliveries = [];
    for (let i = 0; i < 4; i++) deliveries.push((await createDelivery(tenant, channel)).delivery);
    await queue.enqueue([{ id: deliveries[0].id, attempts: 0 }]);
    await receiver.waitForRequests(1);
    await queue.enqueue(deliveries.slice(1).map((d) => ({ id: d.id, attempts: 0 })));
    await sleep(1100);

    const busy = await scrapeOf('notifier');
    expect(busy.value('delivery_queue_jobs', { state: 'waiting' }), 'waiting').to.equal(3);
    expect(busy.value('delivery_queue_jobs', { state: 'active' }), 'active').to.equal(1);
    expect(busy.value('delivery_queue_oldest_waiting_job_age_seconds'), 'oldest waiting').to.be.within(1, 30);
    expect(busy.value('notifier_deliveries_in_flight'), 'in flight').to.equal(1);

    for (const d of deliveries) await eventually(async () => (await reload(d)).status === 'DELIVERED', `delivery ${d.id}`);
    expect(receiver.requests).to.have.length(4);
    const delivered = (s: Scrape) => s.value('notifier_deliveries_processed_total', { outcome: 'delivered' });
    await eventually(async () => delivered(await scrapeOf('notifier')) - delivered(before) === 4, 'the delivered counter');
    const idle = await scrapeOf('notifier');
    expect(idle.value('delivery_queue_jobs', { state: 'waiting' })).to.equal(0);
    expect(idle.value('delivery_queue_oldest_waiting_job_age_seconds')).to.equal(0);
    expect(idle.value('notifier_deliveries_in_flight')).to.equal(0);
    expect(
      idle.value('notifier_delivery_duration_seconds_count', { outcome: 'delivered' }) -
        before.value('notifier_delivery_duration_seconds_count', { outcome: 'delivered' }),
    ).to.equal(4);
  });

  it('report the latest check_rules run, run as the real command, from the run log', async () => {
    const company = await buildCompany();
    // No stock and a minimum of 5: the run opens an event for it.
    await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 5 } });
    const started = Date.now() / 1000;
    const run = await runToExit(process.execPath, [CHECK_RULES_ENTRY, '--company', company.id], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        DATABASE_URL: testDatabaseUrl(),
        SECRET_ENCRYPTION_KEY: system().secretEncryptionKey,
        EMAIL_BACKEND: 'console',
      },
      timeoutMs: 60_000,
    });
    expect(run.code, run.text).to.equal(0);
    const s = await scrapeOf('monitor');
    expect(s.value('check_rules_last_run_timestamp_seconds')).to.be.within(started - 1, Date.now() / 1000 + 1);
    expect(s.value('check_rules_last_run_duration_seconds')).to.be.within(0, 60);
    expect(s.value('check_rules_last_run_companies', { status: 'completed' })).to.equal(1);
    expect(s.value('check_rules_last_run_companies', { status: 'failed' })).to.equal(0);
    expect(s.value('check_rules_last_run_results', { result: 'products_evaluated' })).to.equal(1);
    expect(s.value('check_rules_last_run_results', { result: 'events_opened' })).to.equal(1);
  });

  it('expose every metric the Grafana dashboard queries', async () => {
    // Requests of every kind first, so that no family the dashboard reads is empty for lack of traffic.
    expect((await post('/api/v1/register/', {}, { baseUrl: services.urls.gateway, undocumented: true })).status).to.equal(400);
    const exposed = new Set<string>();
    for (const service of SERVICES) for (const family of (await scrapeOf(service)).families()) exposed.add(family);
    const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8'));
    const exprs: string[] = dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr));
    expect(exprs.length).to.be.at.least(20);
    const queried = new Set(exprs.flatMap(metricNamesOf));
    for (const wanted of [
      'http_request_duration_seconds_bucket',
      'inventory_bookings_total',
      'delivery_queue_jobs',
      'notifier_deliveries_processed_total',
      'check_rules_last_run_duration_seconds',
      'db_pool_waiting',
    ]) {
      expect([...queried], 'the dashboard reads it').to.include(wanted);
    }
    const missing = [...queried].filter((name) => !exposed.has(familyOf(name, exposed)));
    expect(missing, 'queried by the dashboard, exposed by no service').to.deep.equal([]);
    for (const panel of dashboard.panels.filter((p: any) => p.type !== 'row')) {
      expect(panel.datasource, panel.title).to.deep.equal({ type: 'prometheus', uid: '${datasource}' });
    }
  });
});

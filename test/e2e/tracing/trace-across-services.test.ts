/**
 * Tracing on (docs/operations/tracing.md): the gateway, inventory, monitor and notifier as real processes
 * (their dist/src/main.js) exporting with OTLP/HTTP to a real receiver started here, the delivery queue on a
 * real Redis, and a webhook delivered to a real receiver. One trace must run from the gateway's server span,
 * through the service's server span (whose parent is the gateway's proxy span: the `traceparent` arrived) and
 * its SQL, through the queue job, to the notifier's delivery span. Skipped, loudly, without Redis.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { post, get, expectStatus } from '../../support/api';
import { TestCompany, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { system, testDatabaseUrl } from '../../support/hooks';
import { OtlpReceiver, ReceivedSpan, SPAN_KIND, startOtlpReceiver } from '../../support/otlp-receiver';
import { RunningProcess, killAll, runToExit, startOnFreePort } from '../../support/processes';
import { Receiver, startReceiver } from '../../support/receiver';
import { REDIS_URL, requireRedis } from '../../support/redis';
import { CHECK_RULES_ENTRY, entryOf } from '../../support/service-processes';

type Traced = 'gateway' | 'inventory' | 'monitor' | 'notifier';

const PORT_VARIABLE: Record<Traced, string> = { gateway: 'GATEWAY_PORT', inventory: 'INVENTORY_PORT', monitor: 'MONITOR_PORT', notifier: 'NOTIFIER_PORT' };

const isSql = (s: ReceivedSpan) => s.attributes['db.system.name'] === 'postgresql' || s.attributes['db.system'] === 'postgresql';
/** The gateway's proxy request (pg spans are client spans too). */
const isProxySpan = (s: ReceivedSpan) => s.service === 'pi-gateway' && s.kind === SPAN_KIND.CLIENT && s.attributes['http.request.method'] !== undefined;
const childOf = (parent: ReceivedSpan) => (s: ReceivedSpan) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId;

describe('tracing: one trace from the gateway to the notifier', () => {
  let otlp: OtlpReceiver;
  let webhooks: Receiver;
  let company: TestCompany;
  const processes: RunningProcess[] = [];
  let gatewayUrl: string;
  let common: Record<string, string>;
  let delivery: Record<string, string>;
  const queue = {
    DELIVERY_QUEUE_NAME: `deliveries-trace-${randomBytes(4).toString('hex')}`,
    DELIVERY_QUEUE_PREFIX: `pi-test-${randomBytes(4).toString('hex')}`,
  };

  before(async function () {
    await requireRedis(this, 'tracing: one trace from the gateway to the notifier');
    this.timeout(200_000);
    otlp = await startOtlpReceiver();
    webhooks = await startReceiver();
    const sys = system();
    common = {
      NODE_ENV: 'test',
      DATABASE_URL: testDatabaseUrl(),
      DATABASE_POOL_MAX: '4',
      INTERNAL_JWT_SECRET: sys.internalJwtSecret,
      // The switch: an OTLP endpoint. A short batch delay so the test need not wait 5 s for each export.
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    delivery = { SECRET_ENCRYPTION_KEY: sys.secretEncryptionKey, EMAIL_BACKEND: 'console', REDIS_URL, ALLOW_LOOPBACK_WEBHOOKS: 'true', ...queue };
    const urls: Partial<Record<Traced, string>> = {};
    const start = async (service: Traced, own: Record<string, string> = {}) => {
      // A shared, busy machine can take a while to load a service.
      const started = await startOnFreePort(service, process.execPath, [entryOf(service)], { ...common, ...own }, PORT_VARIABLE[service], {
        timeoutMs: 90_000,
      });
      processes.push(started.process);
      urls[service] = started.url;
    };
    // All settled before any failure is thrown, so that `after` stops every process that did start.
    const started = await Promise.allSettled([start('inventory'), start('monitor', delivery), start('notifier', delivery)]);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    await start('gateway', {
      JWT_SECRET: sys.jwtSecret,
      RATE_LIMITS: 'off',
      PASSWORD_HASH_COST: '14',
      INVENTORY_URL: urls.inventory!,
      MONITOR_URL: urls.monitor!,
      NOTIFIER_URL: urls.notifier!,
      QR_URL: sys.serviceUrls.qr,
    });
    gatewayUrl = urls.gateway!;
    company = await buildCompany();
  });

  after(async function () {
    this.timeout(30_000);
    await killAll(processes);
    await webhooks?.close();
    await otlp?.close();
  });

  it('carries one trace id from the gateway through monitor and its SQL, the queue job, to the webhook delivery', async function () {
    this.timeout(40_000);
    const channel = expectStatus(
      await post(
        '/api/v1/notification-channels/',
        { name: 'Traced hook', kind: 'WEBHOOK', url: webhooks.url, events: ['TEST'] },
        { token: company.token, baseUrl: gatewayUrl },
      ),
      201,
      'create channel',
    ).body;
    const queued = await post(`/api/v1/notification-channels/${channel.id}/test/`, {}, { token: company.token, baseUrl: gatewayUrl });
    expect(queued.status, JSON.stringify(queued.body)).to.equal(202);
    await webhooks.waitForRequests(1, 15_000);

    // The gateway's server span of the test call names the trace.
    const isTestCall = (s: ReceivedSpan) =>
      s.service === 'pi-gateway' && s.kind === SPAN_KIND.SERVER && String(s.attributes['url.path']).endsWith(`/${channel.id}/test/`);
    await otlp.waitFor('the gateway span of the test call', (spans) => spans.some(isTestCall));
    const gatewaySpan = otlp.spans.find(isTestCall)!;
    const traceId = gatewaySpan.traceId;
    // Spans are exported as they end, in batches: wait for the last ones to end (the job's, and monitor's answer).
    await otlp.waitFor('the notifier job span and the monitor server span of that trace', (spans) =>
      ['pi-notifier', 'pi-monitor'].every((service) =>
        spans.some((s) => s.traceId === traceId && s.service === service && (s.kind === SPAN_KIND.CONSUMER || s.kind === SPAN_KIND.SERVER)),
      ),
    );
    const trace = otlp.trace(traceId);

    // gateway → monitor: the proxy's client span is the parent of monitor's server span.
    const proxySpan = trace.find(isProxySpan);
    expect(proxySpan, 'the gateway proxy span').to.not.equal(undefined);
    const monitorSpan = trace.find((s) => s.service === 'pi-monitor' && s.kind === SPAN_KIND.SERVER);
    expect(monitorSpan, 'the monitor server span').to.not.equal(undefined);
    expect(monitorSpan!.parentSpanId, 'the traceparent the monitor received names the proxy span').to.equal(proxySpan!.spanId);
    expect(monitorSpan!.attributes['http.route']).to.equal('/api/v1/notification-channels/:id/test/');
    // The monitor's SQL, in the same trace.
    const monitorSql = trace.filter((s) => s.service === 'pi-monitor' && isSql(s));
    expect(monitorSql.length, 'pg spans of the monitor').to.be.greaterThan(0);
    // monitor → queue → notifier: the job carried the producer span's context.
    const producer = trace.find((s) => s.service === 'pi-monitor' && s.kind === SPAN_KIND.PRODUCER);
    expect(producer?.name).to.equal(`send ${queue.DELIVERY_QUEUE_NAME}`);
    const consumer = trace.find((s) => s.service === 'pi-notifier' && s.kind === SPAN_KIND.CONSUMER);
    expect(consumer?.name).to.equal(`process ${queue.DELIVERY_QUEUE_NAME}`);
    expect(consumer!.parentSpanId).to.equal(producer!.spanId);
    expect(consumer!.attributes['pi.delivery.outcome']).to.equal('delivered');
    // The delivery span is the consumer's child, with the receiver's answer; the notifier's SQL is in the trace too.
    const deliverySpan = trace.find((s) => s.service === 'pi-notifier' && s.name === 'webhook delivery')!;
    expect(deliverySpan.parentSpanId).to.equal(consumer!.spanId);
    expect(deliverySpan.attributes).to.include({ 'pi.channel.kind': 'WEBHOOK', 'http.response.status_code': 200, 'pi.delivery.ok': true });
    expect(trace.filter((s) => s.service === 'pi-notifier' && isSql(s)).length, 'pg spans of the notifier').to.be.greaterThan(0);
    expect(trace.filter(childOf(consumer!)).length).to.be.greaterThan(1);

    // The logs keep the request id as their key and name the trace beside it.
    const monitorOutput = processes.find((p) => p.name === 'monitor')!.output();
    const accessLine = monitorOutput.split('\n').find((l) => l.includes(`/${channel.id}/test/`) && l.includes('"request completed"'));
    expect(accessLine, 'the monitor access log line of the test call').to.not.equal(undefined);
    const logged = JSON.parse(accessLine!) as { req: { id: string }; trace_id?: string };
    expect(logged.req.id).to.equal(queued.headers.get('x-request-id'));
    expect(logged.trace_id).to.equal(traceId);

    // The receiver is another party: it gets no trace headers.
    expect(webhooks.requests[0].headers).to.not.have.property('traceparent');
    expect(webhooks.requests[0].headers).to.not.have.property('tracestate');
    // The exporter's own requests make no spans (no loop of spans about exporting spans).
    expect(otlp.spans.filter((s) => String(s.attributes['url.full'] ?? '').includes('/v1/traces'))).to.deep.equal([]);
    // Nothing secret was exported: not the channel's secret, the bearer token or the company's API key.
    const exported = otlp.bodies.join('\n');
    for (const secret of [channel.secret as string, company.token, company.apiKey]) expect(exported).to.not.include(secret);
  });

  it("continues the client's traceparent through the gateway into inventory and its SQL", async function () {
    this.timeout(30_000);
    const clientTrace = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const res = await get('/api/v1/locations/', { token: company.token, baseUrl: gatewayUrl, headers: { traceparent: `00-${clientTrace}-${clientSpan}-01` } });
    expect(res.status).to.equal(200);
    // The gateway's server span ends last (after the answer is relayed): wait for it and inventory's.
    await otlp.waitFor('the gateway and inventory server spans of the client trace', (spans) =>
      ['pi-gateway', 'pi-inventory'].every((service) => spans.some((s) => s.traceId === clientTrace && s.service === service && s.kind === SPAN_KIND.SERVER)),
    );
    const trace = otlp.trace(clientTrace);
    const gatewaySpan = trace.find((s) => s.service === 'pi-gateway' && s.kind === SPAN_KIND.SERVER)!;
    expect(gatewaySpan.parentSpanId, "the gateway span's parent is the client's").to.equal(clientSpan);
    const proxySpan = trace.find(isProxySpan)!;
    const inventorySpan = trace.find((s) => s.service === 'pi-inventory' && s.kind === SPAN_KIND.SERVER)!;
    expect(inventorySpan.parentSpanId).to.equal(proxySpan.spanId);
    expect(inventorySpan.attributes['http.route']).to.equal('/api/v1/locations/');
    // inventory's SQL ran inside its server span, so before it ended and was exported.
    expect(trace.filter((s) => s.service === 'pi-inventory' && isSql(s)).length, 'pg spans of inventory').to.be.greaterThan(0);
  });

  it('exports no API key that came in a URL, and no SQL literal', async function () {
    this.timeout(30_000);
    const before = otlp.spans.length;
    const res = await get(`/api/v1/widget/locations/?api_key=${company.apiKey}`, { baseUrl: gatewayUrl, undocumented: true });
    expect(res.status).to.be.lessThan(500);
    await otlp.waitFor('the widget call spans', (spans) =>
      spans.slice(before).some((s) => s.service === 'pi-gateway' && String(s.attributes['url.path']).startsWith('/api/v1/widget/locations/')),
    );
    expect(otlp.bodies.join('\n')).to.not.include(company.apiKey);
    const statements = otlp.spans.filter(isSql).map((s) => String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? ''));
    expect(statements.length).to.be.greaterThan(0);
    // Sequelize writes values into the statement text: every literal is masked before export.
    for (const sql of statements) expect(sql.replace(/'\?'/g, ''), sql).to.not.match(/'/);
  });

  it('carries the trace of a check_rules run through the queue to the delivery of the event it opened', async function () {
    this.timeout(120_000);
    const product = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
    await buildLocation(company);
    expectStatus(
      await post(
        '/api/v1/notification-channels/',
        { name: 'Stock alerts', kind: 'WEBHOOK', url: webhooks.url, events: ['THRESHOLD'] },
        { token: company.token, baseUrl: gatewayUrl },
      ),
      201,
      'create channel',
    );
    const before = webhooks.requests.length;
    const run = await runToExit(process.execPath, [CHECK_RULES_ENTRY, '--company', company.id], {
      env: { PATH: process.env.PATH ?? '', ...common, ...delivery },
      timeoutMs: 90_000,
    });
    expect(run.code, run.text).to.equal(0);
    expect(run.text).to.match(/events opened: 1/);
    await webhooks.waitForRequests(before + 1, 15_000);
    expect(webhooks.requests[before].body).to.include(product.id);

    // The run is a trace of its own: its root span, its SQL, the producer span, then the notifier's job and delivery.
    const isRun = (s: ReceivedSpan) => s.service === 'pi-check-rules' && s.name === 'check_rules';
    await otlp.waitFor('the check_rules root span', (spans) => spans.some(isRun));
    const root = otlp.spans.find(isRun)!;
    expect(root.parentSpanId).to.equal('');
    await otlp.waitFor('the notifier job span of the run', (spans) =>
      spans.some((s) => s.traceId === root.traceId && s.service === 'pi-notifier' && s.kind === SPAN_KIND.CONSUMER),
    );
    const trace = otlp.trace(root.traceId);
    expect(trace.filter((s) => s.service === 'pi-check-rules' && isSql(s)).length, 'pg spans of the run').to.be.greaterThan(0);
    const producer = trace.find((s) => s.service === 'pi-check-rules' && s.kind === SPAN_KIND.PRODUCER)!;
    const consumer = trace.find((s) => s.service === 'pi-notifier' && s.kind === SPAN_KIND.CONSUMER)!;
    expect(consumer.parentSpanId).to.equal(producer.spanId);
    const deliverySpan = trace.find((s) => s.service === 'pi-notifier' && s.name === 'webhook delivery');
    expect(deliverySpan?.parentSpanId).to.equal(consumer.spanId);
    expect(deliverySpan?.attributes['http.response.status_code']).to.equal(200);
  });
});

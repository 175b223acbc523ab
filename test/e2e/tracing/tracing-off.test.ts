/**
 * Tracing off (docs/operations/tracing.md): a process that is not asked to trace loads nothing of OpenTelemetry,
 * exports nothing (OTEL_TRACES_EXPORTER=none wins over an endpoint), and its gateway neither invents a
 * `traceparent` on the hop to a service nor drops or changes the one the client sent. With tracing on, the
 * same hop carries the gateway's own span in the client's trace. The "service" here is a real HTTP server
 * that records the headers it gets.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { get } from '../../support/api';
import { TestCompany, buildCompany } from '../../support/builders';
import { system, testDatabaseUrl } from '../../support/hooks';
import { OtlpReceiver, startOtlpReceiver } from '../../support/otlp-receiver';
import { ROOT, RunningProcess, killAll, runToExit, startOnFreePort } from '../../support/processes';
import { entryOf } from '../../support/service-processes';
import { sleep } from '../../support/wait';

interface Upstream {
  url: string;
  headers: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** Stands in for inventory: answers every request with an empty page and keeps its headers. */
async function startUpstream(): Promise<Upstream> {
  const headers: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    headers.push(req.headers);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"count":0,"next":null,"previous":null,"results":[]}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const traceparent = () => `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;

describe('tracing: off by default', () => {
  describe('what a process loads', () => {
    /**
     * Starts tracing as a service's main.ts does, loads what it instruments, and lists the OpenTelemetry modules
     * then in memory. `@opentelemetry/api` alone does not count: prom-client (metrics) loads it for exemplars, and
     * without an SDK registered every call of it is a no-op; the SDK, instrumentations and exporters must not load.
     */
    const PROBE = `
      require('./services/inventory/dist/src/tracing.js');
      require('@pi/common'); require('express'); require('pg');
      const loaded = Object.keys(require.cache).filter((k) => k.includes('/@opentelemetry/') && !k.includes('/@opentelemetry/api/'));
      process.stdout.write(JSON.stringify({ loaded: loaded.length }));`;
    const probe = async (env: Record<string, string>) => {
      const run = await runToExit(process.execPath, ['-e', PROBE], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeoutMs: 90_000 });
      return { code: run.code, text: run.text, loaded: run.code === 0 ? (JSON.parse(run.text) as { loaded: number }).loaded : undefined };
    };

    it('loads no OpenTelemetry module without an OTEL_* variable', async function () {
      this.timeout(100_000);
      expect(await probe({})).to.include({ code: 0, loaded: 0 });
    });

    it('loads none when OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none says so, even with an endpoint', async function () {
      this.timeout(200_000);
      expect(await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).to.include({ code: 0, loaded: 0 });
      expect(await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' })).to.include({ code: 0, loaded: 0 });
    });

    it('loads the SDK once an OTLP endpoint is set', async function () {
      this.timeout(100_000);
      const on = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
      expect(on.code, on.text).to.equal(0);
      expect(on.loaded).to.be.greaterThan(0);
    });

    it('refuses to start with an OTLP protocol it cannot speak, naming the variable', async function () {
      this.timeout(100_000);
      const bad = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
      expect(bad.code).to.equal(78);
      expect(bad.text).to.include('OTEL_EXPORTER_OTLP_PROTOCOL').and.include('http/json');
    });
  });

  describe("the gateway's hop to a service", () => {
    let otlp: OtlpReceiver;
    let upstream: Upstream;
    let company: TestCompany;
    const processes: RunningProcess[] = [];

    /** A gateway process whose inventory is the recording upstream. */
    const startGateway = async (env: Record<string, string>) => {
      const sys = system();
      const { process: gateway, url } = await startOnFreePort(
        'gateway',
        process.execPath,
        [entryOf('gateway')],
        {
          NODE_ENV: 'test',
          DATABASE_URL: testDatabaseUrl(),
          DATABASE_POOL_MAX: '4',
          INTERNAL_JWT_SECRET: sys.internalJwtSecret,
          JWT_SECRET: sys.jwtSecret,
          RATE_LIMITS: 'off',
          INVENTORY_URL: upstream.url,
          QR_URL: sys.serviceUrls.qr,
          MONITOR_URL: sys.serviceUrls.monitor,
          NOTIFIER_URL: sys.serviceUrls.notifier,
          OTEL_BSP_SCHEDULE_DELAY: '100',
          ...env,
        },
        'GATEWAY_PORT',
        { timeoutMs: 90_000 },
      );
      processes.push(gateway);
      return { url, gateway };
    };
    const call = (baseUrl: string, headers: Record<string, string> = {}) =>
      get('/api/v1/locations/', { token: company.token, baseUrl, headers, undocumented: true });

    before(async function () {
      this.timeout(30_000);
      otlp = await startOtlpReceiver();
      upstream = await startUpstream();
      company = await buildCompany();
    });
    beforeEach(() => {
      upstream.headers.length = 0;
    });
    after(async function () {
      this.timeout(30_000);
      await killAll(processes);
      await upstream?.close();
      await otlp?.close();
    });

    it("with tracing off, adds no traceparent, passes the client's through unchanged, and exports nothing", async function () {
      this.timeout(120_000);
      // An endpoint is set, but OTEL_TRACES_EXPORTER=none turns tracing off.
      const { url } = await startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_TRACES_EXPORTER: 'none' });
      expect((await call(url)).status).to.equal(200);
      const sent = traceparent();
      expect((await call(url, { traceparent: sent, tracestate: 'vendor=1' })).status).to.equal(200);

      expect(upstream.headers).to.have.length(2);
      expect(upstream.headers[0]).to.not.have.property('traceparent');
      expect(upstream.headers[0]).to.not.have.property('tracestate');
      expect(upstream.headers[1].traceparent).to.equal(sent);
      expect(upstream.headers[1].tracestate).to.equal('vendor=1');
      await sleep(1000); // several batch delays
      expect(otlp.bodies).to.deep.equal([]);
    });

    it("with tracing on, sends the gateway's own span in the client's trace (or in a new one)", async function () {
      this.timeout(120_000);
      const { url } = await startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint });
      expect((await call(url)).status).to.equal(200);
      const sent = traceparent();
      expect((await call(url, { traceparent: sent })).status).to.equal(200);

      expect(upstream.headers).to.have.length(2);
      const [, clientTrace, clientSpan] = sent.split('-');
      const fresh = String(upstream.headers[0].traceparent).split('-');
      expect(fresh[1])
        .to.match(/^[0-9a-f]{32}$/)
        .and.not.equal(clientTrace);
      const continued = String(upstream.headers[1].traceparent).split('-');
      expect(continued[1], 'same trace as the client').to.equal(clientTrace);
      expect(continued[2], "the gateway's proxy span, not the client's")
        .to.match(/^[0-9a-f]{16}$/)
        .and.not.equal(clientSpan);
      await otlp.waitFor('the proxy span that was sent on', (spans) => spans.some((s) => s.spanId === continued[2] && s.service === 'pi-gateway'));
    });
  });
});

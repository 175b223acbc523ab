import http from 'node:http';
import { expect } from 'chai';
import express from 'express';
import {
  HTTP_DURATION_METRIC,
  closeServer,
  createMetricsRegistry,
  errorMiddleware,
  createLogger,
  httpMetrics,
  listen,
  metricsRouter,
  pathGate,
  requestId,
} from '../src';

describe('metrics (libs/common/src/metrics)', () => {
  const token = 'a-metrics-token-of-at-least-32-characters';
  const registry = createMetricsRegistry('unit', { processMetrics: false });
  let server: http.Server;
  let url: string;

  before(async () => {
    const app = express();
    app.use(requestId());
    app.use(httpMetrics(registry));
    app.use(metricsRouter(registry, { token }));
    app.use(pathGate(['/things/{id}/', '/things/special/', '/slow/']));
    app.get('/things/special/', (_req, res) => void res.json({ special: true }));
    app.get('/things/:id/', (req, res) => void res.status(req.params.id === 'missing' ? 404 : 200).json({ id: req.params.id }));
    app.get('/slow/', () => {}); // never answers: the client gives up
    app.use(errorMiddleware(createLogger('unit', 'silent')));
    server = await listen(app, 0, '127.0.0.1');
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => closeServer(server, 100));

  const scrapeText = async () => {
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).to.equal(200);
    return res.text();
  };
  const countOf = (text: string, labels: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${HTTP_DURATION_METRIC}_count{`) && l.includes(labels));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  it('labels requests by the template the path gate resolved, never by the path, with the service label', async () => {
    for (const id of ['a1', 'b2', 'c3']) await fetch(`${url}/things/${id}/`);
    await fetch(`${url}/things/missing/`);
    await fetch(`${url}/things/special/`);
    await fetch(`${url}/things/d4`); // the final slash left out: the same template
    const text = await scrapeText();
    expect(countOf(text, 'service="unit",method="GET",route="/things/{id}/",status_code="200"')).to.equal(4);
    expect(countOf(text, 'route="/things/{id}/",status_code="404"')).to.equal(1);
    expect(countOf(text, 'route="/things/special/",status_code="200"')).to.equal(1);
    for (const id of ['a1', 'b2', 'c3', 'd4', 'missing']) expect(text).to.not.include(id);
  });

  it('labels a path no template takes `unmatched`, an unknown method OTHER, and an answer the client left `aborted`', async () => {
    await fetch(`${url}/nowhere/1`);
    await fetch(`${url}/nowhere/2`);
    await new Promise<void>((resolve) => {
      const req = http.request(`${url}/things/a1/`, { method: 'PROPFIND' }, (res) => res.resume().on('end', resolve));
      req.end();
    });
    const controller = new AbortController();
    const slow = fetch(`${url}/slow/`, { signal: controller.signal }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await slow;
    await new Promise((r) => setTimeout(r, 100));
    const text = await scrapeText();
    expect(countOf(text, 'method="GET",route="unmatched",status_code="404"')).to.equal(2);
    expect(countOf(text, 'method="OTHER",route="/things/{id}/"')).to.equal(1);
    expect(countOf(text, 'route="/slow/",status_code="aborted"')).to.equal(1);
  });

  it('answers /metrics only with the bearer token when one is set', async () => {
    for (const authorization of [undefined, `Bearer ${token}x`, token, `Basic ${token}`]) {
      const res = await fetch(`${url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status, String(authorization)).to.equal(401);
      expect(await res.json()).to.deep.include({ code: 'authentication_failed' });
    }
    const open = express().use(metricsRouter(registry));
    const openServer = await listen(open, 0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${(openServer.address() as { port: number }).port}/metrics`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    } finally {
      await closeServer(openServer, 100);
    }
  });
});

import http from 'node:http';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import express from 'express';
import { accessLog, closeServer, createLogger, listen, requestId } from '../src';

describe('access log', () => {
  const lines: Array<Record<string, any>> = [];
  let server: http.Server;
  let url: string;

  before(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = express();
    app.use(requestId());
    app.use(accessLog(createLogger('test', 'info', sink)));
    app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
    app.get('/ok/', (_req, res) => void res.json({ ok: true }));
    app.get('/boom/', (_req, res) => void res.status(500).json({ error: 'x' }));
    app.get('/hang/', () => {}); // never answers: the client gives up
    const nested = express.Router();
    nested.get('/inner/', (_req, res) => void res.status(404).end());
    app.use('/mounted', nested);
    server = await listen(app, 0, '127.0.0.1');
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => closeServer(server, 100));

  const lineFor = async (id: string) => {
    for (let i = 0; i < 50 && !lines.some((l) => l.req?.id === id); i++) await new Promise((r) => setTimeout(r, 20));
    return lines.find((l) => l.req?.id === id);
  };

  it('writes one line per request: id, method, the URL as sent with credentials scrubbed, status, time', async () => {
    const sentAt = performance.now();
    await fetch(`${url}/ok/?api_key=pik_secretvalue&page=2`, { headers: { 'x-request-id': 'req-access-1' } });
    const elapsedMs = performance.now() - sentAt;
    const line = await lineFor('req-access-1');
    expect(line).to.include({ level: 30, msg: 'request completed', responseTime: line!.responseTime });
    expect(line!.req).to.deep.equal({ id: 'req-access-1', method: 'GET', url: '/ok/?api_key=[redacted]&page=2' });
    expect(line!.res).to.deep.equal({ statusCode: 200 });
    expect(line!.responseTime, 'measured within the request').to.be.within(0, elapsedMs);
    expect(JSON.stringify(lines)).to.not.include('pik_secretvalue');
  });

  it('logs 4xx at warn and 5xx at error, with the URL before any router rewrote it', async () => {
    await fetch(`${url}/mounted/inner/`, { headers: { 'x-request-id': 'req-access-2' } });
    await fetch(`${url}/boom/`, { headers: { 'x-request-id': 'req-access-3' } });
    expect(await lineFor('req-access-2')).to.deep.include({
      level: 40,
      msg: 'request completed',
      req: { id: 'req-access-2', method: 'GET', url: '/mounted/inner/' },
    });
    expect(await lineFor('req-access-3')).to.deep.include({ level: 50, msg: 'request errored', res: { statusCode: 500 } });
  });

  it('says so when the client went away before the answer, and skips the probes', async () => {
    await fetch(`${url}/hang/`, { headers: { 'x-request-id': 'req-access-4' }, signal: AbortSignal.timeout(100) }).catch(() => {});
    expect(await lineFor('req-access-4')).to.deep.include({ msg: 'request aborted' });
    await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'req-access-5' } });
    expect(await lineFor('req-access-5')).to.equal(undefined);
  });
});

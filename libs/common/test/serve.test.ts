import http from 'node:http';
import { expect } from 'chai';
import express from 'express';
import { closeServer, listen } from '../src';

describe('listen: an Express app on its own server', () => {
  let server: http.Server;
  let url: string;
  const app = express();
  const seen: Array<{ requestReady: boolean; responseReady: boolean }> = [];

  before(async () => {
    app.use(express.json());
    app.post('/echo/:id/', (req, res) => {
      res
        .status(201)
        .set('X-Echo', req.get('X-Sent') ?? '')
        .json({ id: req.params.id, query: req.query, body: req.body as unknown });
    });
    server = await listen(app, 0, '127.0.0.1');
    // Runs before Express sees the request: what the server built, not what Express changed.
    server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      seen.push({ requestReady: Object.getPrototypeOf(req) === app.request, responseReady: Object.getPrototypeOf(res) === app.response });
    });
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => closeServer(server, 100));

  it("builds each request and answer on the app's own prototypes, so Express has none to change (docs/operations/benchmarks.md)", async () => {
    const res = await fetch(`${url}/echo/a1/?q=x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sent': 'hello' },
      body: JSON.stringify({ n: 1 }),
    });
    expect(res.status).to.equal(201);
    expect(res.headers.get('x-echo')).to.equal('hello');
    expect(await res.json()).to.deep.equal({ id: 'a1', query: { q: 'x' }, body: { n: 1 } });
    expect(seen).to.deep.equal([{ requestReady: true, responseReady: true }]);
  });

  it('keeps what Node gives a request and an answer: streams, headers, instanceof', async () => {
    let checked: Record<string, boolean> = {};
    server.prependOnceListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      checked = {
        request: req instanceof http.IncomingMessage,
        response: res instanceof http.ServerResponse,
        headers: req.headers.host === new URL(url).host,
        readable: typeof req.pipe === 'function' && req.readable,
      };
    });
    const res = await fetch(`${url}/echo/b2/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).to.equal(201);
    expect(checked).to.deep.equal({ request: true, response: true, headers: true, readable: true });
  });
});

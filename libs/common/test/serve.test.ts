import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { closeServer, listen } from '../src';
import { unparsableRequestAnswer } from '../src/http/unparsable-request';

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

/** Sends `bytes` on a new connection and answers everything that comes back until the server closes it. */
function rawExchange(url: string, bytes: string): Promise<{ head: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      resolve({ head: text.slice(0, split), body: text.slice(split + 4) });
    });
  });
}

describe('listen: requests the HTTP parser refuses', () => {
  let server: http.Server;
  let url: string;
  let reached = 0;

  before(async () => {
    const app = express();
    app.use((_req, res) => {
      reached++;
      res.status(204).end();
    });
    server = await listen(app, 0, '127.0.0.1');
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => closeServer(server, 100));

  /** The answer's status line, and its body parsed, checked for the error shape with the header's request id. */
  function errorAnswer({ head, body }: { head: string; body: string }) {
    const requestId = /^x-request-id: (.+)$/im.exec(head)?.[1];
    const parsed = JSON.parse(body);
    expect(parsed).to.have.all.keys('error', 'code', 'details', 'request_id');
    expect(parsed.request_id).to.be.a('string').and.equal(requestId);
    expect(head).to.match(/^content-type: application\/json; charset=utf-8$/im);
    expect(head).to.match(/^connection: close$/im);
    return { status: head.split('\r\n')[0], code: parsed.code, details: parsed.details };
  }

  it('answers a control character in a header value with 400 in the error shape, naming the headers', async () => {
    const answer = errorAnswer(await rawExchange(url, 'GET /x HTTP/1.1\r\nHost: a\r\nX-Request-Id: ab\u0001cd\r\n\r\n'));
    expect(answer).to.deep.equal({
      status: 'HTTP/1.1 400 Bad Request',
      code: 'validation_error',
      details: { headers: 'a header name or value holds a character HTTP does not allow' },
    });
  });

  it('answers headers over the size limit with 431 headers_too_large', async () => {
    const answer = errorAnswer(await rawExchange(url, `GET /x HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(answer).to.deep.equal({
      status: 'HTTP/1.1 431 Request Header Fields Too Large',
      code: 'headers_too_large',
      details: { headers: `the headers are larger than ${http.maxHeaderSize} bytes` },
    });
  });

  it('answers a request line that is not HTTP with 400 naming the request, and lets no request through', async () => {
    const answer = errorAnswer(await rawExchange(url, 'HELLO THERE\r\n\r\n'));
    expect(answer).to.deep.equal({
      status: 'HTTP/1.1 400 Bad Request',
      code: 'validation_error',
      details: { request: 'is not a well-formed HTTP/1.1 request' },
    });
    expect(reached).to.equal(0);
  });

  it('answers headers that took longer than headersTimeout with 408 request_timeout (the answer Node would send as a bare line)', () => {
    const timeout = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    const [head, body] = unparsableRequestAnswer(timeout).split('\r\n\r\n');
    expect(head.split('\r\n')[0]).to.equal('HTTP/1.1 408 Request Timeout');
    expect(head).to.include(`Content-Length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).to.deep.include({ code: 'request_timeout', details: {} });
  });

  it('answers a well-formed request on the same server as usual', async () => {
    expect((await fetch(`${url}/x`)).status).to.equal(204);
    expect(reached).to.equal(1);
  });
});

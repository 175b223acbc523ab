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

/** The status line, headers and parsed body of an answer written as raw HTTP. */
function parsedAnswer(raw: string) {
  const split = raw.indexOf('\r\n\r\n');
  const [status, ...headers] = raw.slice(0, split).split('\r\n');
  const body = raw.slice(split + 4);
  return { status, headers, body: JSON.parse(body), length: Buffer.byteLength(body) };
}

/** Writes `bytes` on a new connection to `port`; resolves with everything that came back once the server closed it. */
function exchangeOn(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

const parserError = (code: string) => Object.assign(new Error('from the parser'), { code });

describe('listen: the answer to a request the HTTP parser refuses', () => {
  it('is wired on every server listen makes', async () => {
    const server = await listen(express(), 0, '127.0.0.1');
    try {
      expect(server.listeners('clientError')).to.have.length(1);
    } finally {
      await closeServer(server, 100);
    }
  });

  it('is in the error shape, with its length, the request id in a header and the connection closed', () => {
    const answer = parsedAnswer(unparsableRequestAnswer(parserError('HPE_INVALID_HEADER_TOKEN')));
    expect(answer.status).to.equal('HTTP/1.1 400 Bad Request');
    expect(answer.body).to.deep.equal({
      error: 'Malformed HTTP request.',
      code: 'validation_error',
      details: { headers: 'a header name or value holds a character HTTP does not allow' },
      request_id: answer.body.request_id,
    });
    expect(answer.headers).to.include.members([
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${answer.length}`,
      `X-Request-Id: ${answer.body.request_id as string}`,
      'Connection: close',
    ]);
  });

  it('says which limit or rule the request broke: 431 for headers over the limit, 413 for chunk extensions, 408 for headers too slow, 400 naming request otherwise', () => {
    const of = (code: string) => {
      const { status, body } = parsedAnswer(unparsableRequestAnswer(parserError(code)));
      return { status, code: body.code, details: body.details };
    };
    expect(of('HPE_HEADER_OVERFLOW')).to.deep.equal({
      status: 'HTTP/1.1 431 Request Header Fields Too Large',
      code: 'headers_too_large',
      details: { headers: `the headers are larger than ${http.maxHeaderSize} bytes` },
    });
    expect(of('HPE_CHUNK_EXTENSIONS_OVERFLOW')).to.deep.equal({
      status: 'HTTP/1.1 413 Payload Too Large',
      code: 'payload_too_large',
      details: { body: 'its chunk extensions are too large' },
    });
    expect(of('ERR_HTTP_REQUEST_TIMEOUT')).to.deep.equal({ status: 'HTTP/1.1 408 Request Timeout', code: 'request_timeout', details: {} });
    expect(of('HPE_INVALID_METHOD')).to.deep.equal({
      status: 'HTTP/1.1 400 Bad Request',
      code: 'validation_error',
      details: { request: 'is not a well-formed HTTP/1.1 request' },
    });
  });
});

describe('listen: an answer written straight to the socket goes after the answers the connection owes (owed-answers.ts)', () => {
  let server: http.Server;
  let port: number;
  const finished: string[] = [];

  before(async () => {
    const app = express();
    // Answers a moment later, as any handler that waits on a database does.
    app.post('/slow/:n/', (req, res) => {
      setTimeout(() => {
        finished.push(req.params.n);
        res.status(201).json({ n: req.params.n });
      }, 50);
    });
    server = await listen(app, 0, '127.0.0.1');
    port = (server.address() as { port: number }).port;
  });
  after(() => closeServer(server, 100));

  const exchange = (bytes: string) => exchangeOn(port, bytes);
  const slow = (n: number) => `POST /slow/${n}/ HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
  const statuses = (text: string) => text.match(/HTTP\/1\.1 \d{3}/g);

  it('answers a request it cannot read after the pipelined requests before it, in order: Node wrote the 400 first', async () => {
    // Written at once, the refusal was the first answer on the connection: the client took it for the answer
    // to /slow/1/, whose own answer was lost although the request was carried out.
    const text = await exchange(`${slow(1)}${slow(2)}GET /x HTTP/1.1\r\nHost: a\r\nX-Bad: a\u0001b\r\n\r\n`);
    expect(statuses(text)).to.deep.equal(['HTTP/1.1 201', 'HTTP/1.1 201', 'HTTP/1.1 400']);
    expect(text.indexOf('{"n":"1"}')).to.be.greaterThan(-1).and.lessThan(text.indexOf('{"n":"2"}'));
    expect(finished).to.deep.equal(['1', '2']);
  });

  it('answers a CONNECT after the requests before it, and at once where none is in flight', async () => {
    expect(statuses(await exchange(`${slow(3)}CONNECT 127.0.0.1:5432 HTTP/1.1\r\nHost: 127.0.0.1:5432\r\n\r\n`))).to.deep.equal([
      'HTTP/1.1 201',
      'HTTP/1.1 405',
    ]);
    expect(statuses(await exchange('GET /x HTTP/1.1\r\nHost: a\r\nX-Bad: a\u0001b\r\n\r\n'))).to.deep.equal(['HTTP/1.1 400']);
  });
});

describe('listen: requests HTTP/1.1 does not allow, refused before the app (http/request-framing.ts)', () => {
  let server: http.Server;
  let port: number;
  let appCalls = 0;

  before(async () => {
    const app = express();
    app.use((_req, _res, next) => {
      appCalls++;
      next();
    });
    app.post('/things/', express.json(), (req, res) => {
      res.status(201).json({ got: req.body as unknown });
    });
    app.get('/things/', (_req, res) => {
      res.json({ ok: true });
    });
    server = await listen(app, 0, '127.0.0.1');
    port = (server.address() as { port: number }).port;
  });
  after(() => closeServer(server, 100));
  beforeEach(() => (appCalls = 0));

  const exchange = (bytes: string) => exchangeOn(port, bytes);

  const refused = async (bytes: string) => {
    const answer = parsedAnswer(await exchange(bytes));
    return { status: answer.status, code: answer.body.code, details: answer.body.details, headers: answer.headers, requestId: answer.body.request_id };
  };

  it('answers 400 in the error shape to an HTTP/1.1 request without Host, where Node answered a bare 400', async () => {
    const answer = await refused('GET /things/ HTTP/1.1\r\nX-Request-Id: probe-no-host-1\r\n\r\n');
    expect(answer).to.deep.include({
      status: 'HTTP/1.1 400 Bad Request',
      code: 'validation_error',
      details: { headers: 'Host is required in an HTTP/1.1 request' },
      requestId: 'probe-no-host-1',
    });
    expect(answer.headers).to.include.members(['Connection: close', 'X-Request-Id: probe-no-host-1']);
    expect(appCalls).to.equal(0);
  });

  it('answers 400 to a second Host, which Node dropped, and never reaches the app with it', async () => {
    const answer = await refused(
      'POST /things/ HTTP/1.1\r\nHost: a.example\r\nhost: b.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(answer).to.deep.include({ status: 'HTTP/1.1 400 Bad Request', code: 'validation_error', details: { headers: 'Host must appear once' } });
    expect(answer.requestId).to.match(/^[0-9a-f-]{36}$/);
    expect(appCalls).to.equal(0);
  });

  it('lets through one Host in any case, and HTTP/1.0 without one', async () => {
    const one = await exchange('GET /things/ HTTP/1.1\r\nHOST: a.example\r\nConnection: close\r\n\r\n');
    expect(one).to.match(/^HTTP\/1\.1 200 OK/);
    const old = await exchange('GET /things/ HTTP/1.0\r\n\r\n');
    expect(old).to.match(/^HTTP\/1\.1 200 OK/);
    expect(appCalls).to.equal(2);
  });

  it('answers 417 expectation_failed to an Expect other than 100-continue, and takes 100-continue', async () => {
    const answer = await refused('POST /things/ HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    expect(answer).to.deep.include({
      status: 'HTTP/1.1 417 Expectation Failed',
      code: 'expectation_failed',
      details: { headers: 'Expect may only be 100-continue' },
    });
    expect(appCalls).to.equal(0);
    const continued = await exchange(
      'POST /things/ HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"n":1}',
    );
    expect(continued).to.match(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 Created/);
    expect(continued).to.include('{"got":{"n":1}}');
  });

  it('answers 405 to CONNECT, with the methods the API takes, where Node closed the connection without a word', async () => {
    const answer = await refused('CONNECT 127.0.0.1:5432 HTTP/1.1\r\nHost: 127.0.0.1:5432\r\n\r\n');
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
    expect(answer).to.deep.include({ status: 'HTTP/1.1 405 Method Not Allowed', code: 'method_not_allowed', details: { allowed_methods: methods } });
    expect(answer.headers).to.include.members([`Allow: ${methods.join(', ')}`, 'Connection: close']);
    expect(appCalls).to.equal(0);
  });
});

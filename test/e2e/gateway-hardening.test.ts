/**
 * The gateway's hardening answers (issue 6, "Versioning and hardening"): whatever goes wrong behind it (a
 * service stopped, a service that accepts the connection and never answers, one that drops the connection
 * mid-answer), the client gets an answer in the error shape `{error, code, details, request_id}` within about
 * PROXY_TIMEOUT_MS, never a hang; and the gateway's own refusals (unknown path, malformed JSON, body over the
 * limit) are in the same shape, with `X-Request-ID` equal to `request_id`.
 *
 * The answer tells whether the request can have had an effect (issue 13, docs/api/deadlines-and-retries.md):
 * 503 `service_unavailable` when it never reached the service (or was a read), 504 `upstream_timeout` when
 * the service got it and did not answer in time, 503 `outcome_unknown` when a change was cut off. Every
 * request carries the gateway's own `X-Request-Deadline`.
 */
import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { deadlineMarginMs } from '@pi/common';
import { CLOSED_PORT } from '../support/closed-port';
import { ApiOptions, ApiResponse, api, get, post } from '../support/api';
import { expectErrorShape } from '../support/assertions';
import { TestCompany, buildCompany } from '../support/builders';
import { system } from '../support/hooks';
import type { RunningGateway } from '../support/system';

const PROXY_TIMEOUT_MS = 600;

/** One authenticated route of each proxied service, and the setting that points the gateway at it. */
const SERVICES = [
  { service: 'inventory', setting: 'INVENTORY_URL', path: '/api/v1/locations/' },
  { service: 'qr', setting: 'QR_URL', path: '/api/v1/qr-codes/' },
  { service: 'monitor', setting: 'MONITOR_URL', path: '/api/v1/monitoring-rules/' },
] as const;

/**
 * A fake service on a loopback port: `onRequest` gets each raw socket once a whole request head has arrived
 * (it may write to it, destroy it, or do nothing at all). Counts the requests it saw.
 */
class FakeService {
  readonly sockets = new Set<net.Socket>();
  requests = 0;
  /** The head (request line and headers) of the last request. */
  lastHead = '';
  private constructor(private readonly server: net.Server) {}

  static async start(onRequest: (socket: net.Socket) => void): Promise<FakeService> {
    const fake: FakeService = new FakeService(
      net.createServer((socket) => {
        fake.sockets.add(socket);
        socket.on('close', () => fake.sockets.delete(socket));
        socket.on('error', () => {});
        let head = '';
        socket.on('data', (chunk) => {
          const before = head.includes('\r\n\r\n');
          head += chunk.toString('latin1');
          if (!before && head.includes('\r\n\r\n')) {
            fake.requests += 1;
            fake.lastHead = head.slice(0, head.indexOf('\r\n\r\n'));
            onRequest(socket);
          }
        });
      }),
    );
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A gateway whose inventory is a FakeService; both go on `started`, to be closed after the suite. */
async function gatewayBehindFake(onRequest: (socket: net.Socket) => void, started: Array<{ close(): Promise<void> }>): Promise<RunningGateway> {
  const fake = await FakeService.start(onRequest);
  started.push(fake);
  const gateway = await system().startGateway({ INVENTORY_URL: fake.url, PROXY_TIMEOUT_MS: String(PROXY_TIMEOUT_MS) });
  started.push(gateway);
  return gateway;
}

/** `api()` with a hard client-side deadline: a hang fails the test instead of the whole run. */
async function timed(method: string, path: string, opts: ApiOptions, deadlineMs: number): Promise<ApiResponse & { ms: number }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${method} ${path}: no answer within ${deadlineMs} ms (the gateway hangs)`)), deadlineMs);
  });
  try {
    const res = await Promise.race([api(method, path, opts), hang]);
    return { ...res, ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What a plain HTTP client sees, at the socket level: the status and body if a whole answer arrived, or the
 * error if the connection ended without one (`fetch` hides the difference between a truncated chunked body and
 * an error behind one generic TypeError).
 */
function rawGet(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  deadlineMs: number,
): Promise<{ status?: number; body: string; complete: boolean; error?: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    let status: number | undefined;
    let body = '';
    const finish = (complete: boolean, error?: string) => {
      clearTimeout(timer);
      resolve({ status, body, complete, error, ms: Date.now() - started });
    };
    const req = http.get(`${baseUrl}${path}`, { headers, agent: false }, (res) => {
      status = res.statusCode;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => finish(res.complete));
      res.on('error', (err) => finish(false, err.message));
      res.on('aborted', () => finish(false, 'aborted'));
    });
    req.on('error', (err) => finish(false, err.message));
    const timer = setTimeout(() => {
      req.destroy();
      finish(false, 'hang');
    }, deadlineMs);
  });
}

function expectServiceUnavailable(res: ApiResponse & { ms?: number }, what: string, status = 503, code = 'service_unavailable') {
  expectErrorShape(res, status, code);
  expect(res.body.details, what).to.deep.equal({});
  expect(res.headers.get('content-type'), what).to.match(/^application\/json/);
}

/** The service got the request and never answered: 504, and for a change, "outcome unknown, retry with the key". */
function expectUpstreamTimeout(res: ApiResponse & { ms?: number }, what: string, method = 'GET') {
  expectServiceUnavailable(res, what, 504, 'upstream_timeout');
  const message = String(res.body.error);
  if (method === 'GET') expect(message, what).to.not.include('Idempotency-Key');
  else expect(message, what).to.include('outcome of this request is unknown').and.include('same Idempotency-Key');
}

describe('gateway hardening: answers when a service behind it fails, and its own refusals', () => {
  let company: TestCompany;

  before(async () => {
    company = await buildCompany();
  });

  describe('a service stopped behind the gateway', () => {
    let gateway: RunningGateway;

    before(async () => {
      const down = `http://127.0.0.1:${CLOSED_PORT}`;
      gateway = await system().startGateway({ INVENTORY_URL: down, QR_URL: down, MONITOR_URL: down, PROXY_TIMEOUT_MS: String(PROXY_TIMEOUT_MS) });
    });

    after(async () => {
      await gateway?.close();
    });

    for (const { service, path } of SERVICES) {
      it(`${service}: 503 service_unavailable in the error shape at once, with the request id`, async () => {
        const res = await timed('GET', path, { token: company.token, baseUrl: gateway.url }, 5000);
        expectServiceUnavailable(res, service);
        expect(res.ms, 'a refused connection is answered at once').to.be.below(PROXY_TIMEOUT_MS);
        const traced = await timed('GET', path, { token: company.token, baseUrl: gateway.url, headers: { 'x-request-id': `hardening-${service}-1` } }, 5000);
        expectServiceUnavailable(traced, service);
        expect(traced.body.request_id).to.equal(`hardening-${service}-1`);
      });
    }

    it('a change (POST) that never reached the service: 503 service_unavailable, nothing happened', async () => {
      const res = await timed(
        'POST',
        '/api/v1/locations/',
        { token: company.token, baseUrl: gateway.url, body: { name: 'Never sent', type: 'WAREHOUSE' } },
        5000,
      );
      expectServiceUnavailable(res, 'POST refused');
    });

    it('the refusal is logged with the request id and the target, and the other routes still work', async () => {
      const mark = system().logs.lines.length;
      await timed('GET', '/api/v1/locations/', { token: company.token, baseUrl: gateway.url, headers: { 'x-request-id': 'hardening-log-1' } }, 5000);
      const line = system()
        .logs.lines.slice(mark)
        .find((l) => l.includes('hardening-log-1') && l.includes('upstream unavailable'));
      expect(line, 'the upstream failure is logged').to.be.a('string');
      expect(JSON.parse(line!)).to.include({ level: 50 });
      // The gateway's own routes do not depend on the services.
      expect((await get('/api/v1/users/', { token: company.token, baseUrl: gateway.url })).status).to.equal(200);
    });
  });

  describe('a service that accepts the connection and never answers', () => {
    let fake: FakeService;
    let gateway: RunningGateway;

    before(async () => {
      fake = await FakeService.start(() => {});
      gateway = await system().startGateway({ INVENTORY_URL: fake.url, QR_URL: fake.url, MONITOR_URL: fake.url, PROXY_TIMEOUT_MS: String(PROXY_TIMEOUT_MS) });
    });

    after(async () => {
      await gateway?.close();
      await fake?.close();
    });

    for (const { service, path } of SERVICES) {
      it(`${service}: 504 upstream_timeout in the error shape after about PROXY_TIMEOUT_MS, never a hang`, async () => {
        const seen = fake.requests;
        const res = await timed('GET', path, { token: company.token, baseUrl: gateway.url }, PROXY_TIMEOUT_MS + 4000);
        expect(fake.requests, 'the request reached the fake service').to.equal(seen + 1);
        expectUpstreamTimeout(res, service);
        expect(res.ms).to.be.within(PROXY_TIMEOUT_MS - 50, PROXY_TIMEOUT_MS + 1500);
      });
    }

    it("sends the gateway's own X-Request-Deadline (when it stops waiting, less a margin), never the client's", async () => {
      const before = Date.now();
      await timed(
        'GET',
        '/api/v1/locations/',
        { token: company.token, baseUrl: gateway.url, headers: { 'x-request-deadline': '99999999999999' } },
        PROXY_TIMEOUT_MS + 4000,
      );
      const after = Date.now();
      const values = fake.lastHead
        .split('\r\n')
        .filter((l) => /^x-request-deadline:/i.test(l))
        .map((l) => l.split(':')[1].trim());
      expect(values, fake.lastHead).to.have.length(1);
      const deadline = Number(values[0]);
      expect(deadline).to.be.within(
        before + PROXY_TIMEOUT_MS - deadlineMarginMs(PROXY_TIMEOUT_MS),
        after + PROXY_TIMEOUT_MS - deadlineMarginMs(PROXY_TIMEOUT_MS),
      );
    });

    it('the timeout is logged with the request id, the target and the timeout', async () => {
      const mark = system().logs.lines.length;
      await timed(
        'GET',
        '/api/v1/locations/',
        { token: company.token, baseUrl: gateway.url, headers: { 'x-request-id': 'hardening-timeout-1' } },
        PROXY_TIMEOUT_MS + 4000,
      );
      const line = system()
        .logs.lines.slice(mark)
        .find((l) => l.includes('hardening-timeout-1') && l.includes('upstream unavailable'));
      expect(line, 'the timeout is logged').to.be.a('string');
      expect(JSON.parse(line!)).to.include({ target: fake.url, timeout_ms: PROXY_TIMEOUT_MS });
    });

    it('a change (POST) times out the same way, and the answer says its outcome is unknown and a retry with the same key is safe', async () => {
      const res = await timed(
        'POST',
        '/api/v1/locations/',
        { token: company.token, baseUrl: gateway.url, body: { name: 'Never stored', code: 'NEVER-1' } },
        PROXY_TIMEOUT_MS + 4000,
      );
      expectUpstreamTimeout(res, 'POST', 'POST');
      expect(res.ms).to.be.within(PROXY_TIMEOUT_MS - 50, PROXY_TIMEOUT_MS + 1500);
    });

    it('the same client connection keeps working after a timed-out request', async () => {
      // Two requests in a row on one keep-alive connection of the client: the timeout closes the upstream
      // side only, not the client's connection before its answer.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const once = () =>
          new Promise<{ status?: number; body: string }>((resolve, reject) => {
            const req = http.get(`${gateway.url}/api/v1/locations/`, { agent, headers: { authorization: `Bearer ${company.token}` } }, (res) => {
              let body = '';
              res.setEncoding('utf8');
              res.on('data', (c: string) => (body += c));
              res.on('end', () => resolve({ status: res.statusCode, body }));
            });
            req.on('error', reject);
            req.setTimeout(PROXY_TIMEOUT_MS + 4000, () => req.destroy(new Error('hang')));
          });
        for (let i = 1; i <= 2; i++) {
          const res = await once();
          expect(res.status, `request ${i}`).to.equal(504);
          expect(JSON.parse(res.body).code).to.equal('upstream_timeout');
        }
      } finally {
        agent.destroy();
      }
    });
  });

  describe('a service that drops the connection mid-answer', () => {
    const started: Array<{ close(): Promise<void> }> = [];

    after(async () => {
      for (const s of started.reverse()) await s.close();
    });

    const gatewayBehind = (onRequest: (socket: net.Socket) => void) => gatewayBehindFake(onRequest, started);

    it('closed after reading the request, before any byte of answer: 503 in the error shape at once', async () => {
      const gateway = await gatewayBehind((socket) => socket.destroy());
      const res = await timed('GET', '/api/v1/locations/', { token: company.token, baseUrl: gateway.url }, 5000);
      expectServiceUnavailable(res, 'closed before answering');
      expect(res.ms).to.be.below(PROXY_TIMEOUT_MS);
    });

    it('a change (POST) read and then cut off before any byte of answer: 503 outcome_unknown, a retry with the same key is safe', async () => {
      const gateway = await gatewayBehind((socket) => socket.destroy());
      const res = await timed(
        'POST',
        '/api/v1/locations/',
        { token: company.token, baseUrl: gateway.url, body: { name: 'Maybe stored', type: 'WAREHOUSE' } },
        5000,
      );
      expectServiceUnavailable(res, 'POST cut off', 503, 'outcome_unknown');
      expect(res.body.error).to.include('same Idempotency-Key');
    });

    it('closed after a partial status line: 503 in the error shape at once', async () => {
      const gateway = await gatewayBehind((socket) => socket.end('HTTP/1.1 20'));
      const res = await timed('GET', '/api/v1/locations/', { token: company.token, baseUrl: gateway.url }, 5000);
      expectServiceUnavailable(res, 'partial status line');
      expect(res.ms).to.be.below(PROXY_TIMEOUT_MS);
    });

    it('closed after the head but before any body byte: 503 in the error shape, not the head it never finished', async () => {
      const gateway = await gatewayBehind((socket) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\nX-From-Service: half-an-answer\r\n\r\n');
        setTimeout(() => socket.destroy(), 50);
      });
      const res = await timed('GET', '/api/v1/locations/', { token: company.token, baseUrl: gateway.url }, 5000);
      expectServiceUnavailable(res, 'head only');
      expect(res.ms).to.be.below(PROXY_TIMEOUT_MS);
      // None of the unfinished answer's headers; the gateway's own are all there.
      expect(res.headers.get('x-from-service')).to.equal(null);
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(Number(res.headers.get('content-length'))).to.equal(Buffer.byteLength(JSON.stringify(res.body)));
    });

    it("silent mid-body for PROXY_TIMEOUT_MS: the client's connection is cut after about the timeout, never a hang", async () => {
      const gateway = await gatewayBehind((socket) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"cou\r\n');
      });
      const res = await rawGet(gateway.url, '/api/v1/locations/', { authorization: `Bearer ${company.token}` }, PROXY_TIMEOUT_MS + 4000);
      expect(res.error, JSON.stringify(res)).to.not.equal('hang');
      expect(res.complete, JSON.stringify(res)).to.equal(false);
      expect(res.ms).to.be.within(PROXY_TIMEOUT_MS - 50, PROXY_TIMEOUT_MS + 1500);
    });

    for (const framing of ['content-length', 'chunked'] as const) {
      it(`closed mid-body (${framing}): the client's connection is cut at once, never a truncated answer that looks complete`, async () => {
        const gateway = await gatewayBehind((socket) => {
          const part = '{"count":2,"results":[{"id":';
          socket.write(
            framing === 'chunked'
              ? `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${part.length.toString(16)}\r\n${part}\r\n`
              : `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n${part}`,
          );
          setTimeout(() => socket.destroy(), 100);
        });
        // The head was already relayed, so no error answer can follow it: the only honest signal left is an
        // incomplete answer, delivered at once (not after a socket timeout).
        const res = await rawGet(gateway.url, '/api/v1/locations/', { authorization: `Bearer ${company.token}` }, PROXY_TIMEOUT_MS + 4000);
        expect(res.error, JSON.stringify(res)).to.not.equal('hang');
        expect(res.complete, `the client must see the answer as incomplete: ${JSON.stringify(res)}`).to.equal(false);
        expect(res.status).to.equal(200);
        expect(res.ms, 'cut when the service drops, not at a timeout').to.be.below(PROXY_TIMEOUT_MS);
      });
    }
  });

  describe('a service that answers before it has read the whole body', () => {
    const started: Array<{ close(): Promise<void> }> = [];
    const BIG_BODY = 'y'.repeat(4_000_000);

    after(async () => {
      for (const s of started.reverse()) await s.close();
    });

    const gatewayBehind = (onRequest: (socket: net.Socket) => void) => gatewayBehindFake(onRequest, started);

    /** One request on `agent`; `port` is the client's end of the connection it went on. */
    function send(agent: http.Agent, gateway: RunningGateway, method: string, body?: string): Promise<{ status?: number; body: string; port?: number }> {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string | number> = { authorization: `Bearer ${company.token}` };
        if (body !== undefined) Object.assign(headers, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
        const req = http.request(`${gateway.url}/api/v1/locations/`, { method, agent, headers }, (res) => {
          const port = res.socket.localPort;
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode, body: text, port }));
        });
        req.on('error', reject);
        req.setTimeout(5000, () => req.destroy(new Error(`${method}: no answer within 5 s (the connection hangs)`)));
        req.end(body);
      });
    }

    /** A large body, then a second request on the same client connection: both answered, the connection kept. */
    async function bodyThenNext(gateway: RunningGateway) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const first = await send(agent, gateway, 'POST', BIG_BODY);
        const next = await send(agent, gateway, 'GET');
        return { first, next };
      } finally {
        agent.destroy();
      }
    }

    it("answered without reading it: the answer is relayed, and the client's next request on its connection is answered too", async () => {
      const answer = JSON.stringify({ error: 'Unsupported body.', code: 'validation_error', details: {}, request_id: 'fake' });
      // Answers at once and never reads another byte from that connection.
      const gateway = await gatewayBehind((socket) => {
        socket.pause();
        socket.write(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${answer.length}\r\n\r\n${answer}`);
      });
      const { first, next } = await bodyThenNext(gateway);
      expect(first.status, first.body).to.equal(400);
      expect(JSON.parse(first.body).error).to.equal('Unsupported body.');
      expect(next.status, next.body).to.equal(400);
      expect(next.port, 'the second request went on the same client connection').to.equal(first.port);
    });

    it("cut off after the head, mid-body: 503 service_unavailable (never sent whole, so never acted on), and the client's next request on its connection is answered too", async () => {
      const gateway = await gatewayBehind((socket) => socket.destroy());
      const { first, next } = await bodyThenNext(gateway);
      expect(first.status, first.body).to.equal(503);
      expect(JSON.parse(first.body).code).to.equal('service_unavailable');
      expect(next.status, next.body).to.equal(503);
      expect(JSON.parse(next.body).code).to.equal('service_unavailable');
      expect(next.port, 'the second request went on the same client connection').to.equal(first.port);
    });
  });

  describe("the gateway's own refusals", () => {
    const cases: Array<{ what: string; method: string; path: string; opts: ApiOptions; status: number; code: string }> = [
      { what: 'an unknown path', method: 'GET', path: '/api/v1/no-such-thing/', opts: {}, status: 404, code: 'not_found' },
      { what: 'an unknown path outside /api', method: 'GET', path: '/no/such/page', opts: {}, status: 404, code: 'not_found' },
      {
        what: 'malformed JSON (gateway route)',
        method: 'POST',
        path: '/api/v1/register/',
        opts: { rawBody: '{"company_name": "x",' },
        status: 400,
        code: 'validation_error',
      },
      {
        what: 'malformed JSON (proxied route)',
        method: 'POST',
        path: '/api/v1/locations/',
        opts: { rawBody: '{"name": ' },
        status: 400,
        code: 'validation_error',
      },
      {
        what: 'a body over the limit (gateway route)',
        method: 'POST',
        path: '/api/v1/register/',
        opts: { rawBody: JSON.stringify({ company_name: 'x'.repeat(1_200_000) }) },
        status: 413,
        code: 'payload_too_large',
      },
      {
        what: 'a body over the limit (proxied route)',
        method: 'POST',
        path: '/api/v1/locations/',
        opts: { rawBody: JSON.stringify({ name: 'x'.repeat(1_200_000) }) },
        status: 413,
        code: 'payload_too_large',
      },
    ];

    for (const c of cases) {
      it(`${c.status} ${c.code} for ${c.what}, in the error shape with X-Request-ID = request_id`, async () => {
        const withToken = c.path === '/api/v1/locations/' ? { token: company.token } : {};
        const res = await api(c.method, c.path, { ...c.opts, ...withToken });
        expectErrorShape(res, c.status, c.code);
        expect(res.headers.get('content-type')).to.match(/^application\/json/);
        const traced = await api(c.method, c.path, { ...c.opts, ...withToken, headers: { 'x-request-id': 'hardening-own-12345' } });
        expectErrorShape(traced, c.status, c.code);
        expect(traced.body.request_id).to.equal('hardening-own-12345');
      });
    }

    it('a smaller BODY_LIMIT is enforced the same way', async () => {
      const gateway = await system().startGateway({ BODY_LIMIT: '2kb' });
      try {
        const res = await post('/api/v1/locations/', { name: 'x'.repeat(3000) }, { token: company.token, baseUrl: gateway.url });
        expectErrorShape(res, 413, 'payload_too_large');
        const fits = await post('/api/v1/locations/', { name: 'x'.repeat(300) }, { token: company.token, baseUrl: gateway.url });
        expect(fits.status).to.not.equal(413);
      } finally {
        await gateway.close();
      }
    });
  });
});

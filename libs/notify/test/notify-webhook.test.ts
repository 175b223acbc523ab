import { createHmac } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import sinon from 'sinon';
import { REFUSED_ADDRESS_MESSAGE, sendWebhook, signBody, verifySignature } from '../src';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

interface Receiver {
  port: number;
  url: string;
  requests: Received[];
  close(): Promise<void>;
}

type Answer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const answerOk: Answer = (_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('thanks');

/** A local HTTP receiver that records every request (with its full body) before answering. */
async function startReceiver(answer: Answer = answerOk, host = '127.0.0.1'): Promise<Receiver> {
  const requests: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    port,
    url: `http://${urlHost}:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const SECRET = 'whsec_test-secret-0123456789abcdefghijklmnopqrstu';
const BODY = JSON.stringify({ event_id: '6f1c0a52-4a43-4d4f-9d3b-2f1b7f0a1c11', type: 'TEST', product: { name: 'Café crème ✓' } });

describe('sendWebhook', () => {
  const receivers: Receiver[] = [];
  const receiver = async (answer?: Answer, host?: string) => {
    const started = await startReceiver(answer, host);
    receivers.push(started);
    return started;
  };

  afterEach(async () => {
    sinon.restore();
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('POSTs the exact body once, signed, with the documented headers', async () => {
    const target = await receiver();
    // The same clock as sendWebhook's (which rounds to whole ms): Date.now() could read 25 ms around a 25.6 ms call.
    const sentAt = performance.now();
    const result = await sendWebhook({ url: `${target.url}/hooks/in?channel=1`, body: BODY, secret: SECRET, allowLoopback: true, eventId: 'evt-1' });
    const elapsedMs = Math.ceil(performance.now() - sentAt);

    expect(result).to.include({ ok: true, statusCode: 200, responseExcerpt: 'thanks' });
    expect(result.error).to.equal(undefined);
    expect(result.durationMs, 'measured within the call').to.be.within(0, elapsedMs);
    expect(target.requests).to.have.length(1);
    const [received] = target.requests;
    expect(received.method).to.equal('POST');
    expect(received.url).to.equal('/hooks/in?channel=1');
    expect(received.body.equals(Buffer.from(BODY, 'utf8'))).to.equal(true);
    expect(received.headers['content-type']).to.equal('application/json');
    expect(received.headers['content-length']).to.equal(String(Buffer.byteLength(BODY)));
    expect(received.headers['user-agent']).to.equal('pi-inventory-webhooks/1');
    expect(received.headers['x-pi-event-id']).to.equal('evt-1');

    const signature = received.headers['x-pi-signature'] as string;
    expect(verifySignature(received.body, SECRET, signature)).to.equal(true);
    // What a receiver following docs/api/monitoring-and-notifications.md computes by itself.
    const expected = 'sha256=' + createHmac('sha256', SECRET).update(received.body).digest('hex');
    expect(signature).to.equal(expected);
  });

  it('omits X-PI-Event-Id when no event id is given and honours a custom User-Agent', async () => {
    const target = await receiver();
    await sendWebhook({ url: target.url, body: BODY, secret: SECRET, allowLoopback: true, userAgent: 'custom/2' });
    expect(target.requests[0].headers).to.not.have.property('x-pi-event-id');
    expect(target.requests[0].headers['user-agent']).to.equal('custom/2');
  });

  it('counts any 2xx as delivered', async () => {
    const target = await receiver((_req, res) => res.writeHead(204).end());
    const result = await sendWebhook({ url: target.url, body: BODY, secret: SECRET, allowLoopback: true });
    expect(result).to.include({ ok: true, statusCode: 204 });
    expect(result).to.not.have.property('responseExcerpt');
  });

  it('reports a 500 as a failed attempt with its status and answer, sent once', async () => {
    const target = await receiver((_req, res) => res.writeHead(500).end('database is down'));
    const result = await sendWebhook({ url: target.url, body: BODY, secret: SECRET, allowLoopback: true });
    expect(result).to.include({ ok: false, statusCode: 500, responseExcerpt: 'database is down' });
    expect(result.error).to.include('500');
    expect(target.requests).to.have.length(1);
  });

  it('does not follow a redirect: the attempt fails and the redirect target receives nothing', async () => {
    const elsewhere = await receiver();
    const target = await receiver((_req, res) => res.writeHead(302, { Location: `${elsewhere.url}/stolen` }).end());
    const result = await sendWebhook({ url: target.url, body: BODY, secret: SECRET, allowLoopback: true });
    expect(result).to.include({ ok: false, statusCode: 302 });
    expect(result.error).to.include('redirect not followed').and.to.include('302');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(elsewhere.requests).to.have.length(0);
  });

  it('gives up on a receiver that never answers, after the timeout', async () => {
    const target = await receiver(() => undefined);
    const result = await sendWebhook({ url: target.url, body: BODY, secret: SECRET, allowLoopback: true, timeoutMs: 300 });
    expect(result.ok).to.equal(false);
    expect(result.error).to.equal('timed out after 300 ms');
    expect(result.statusCode).to.equal(undefined);
    expect(result.durationMs).to.be.at.least(250).and.below(5_000);
  });

  it('holds one deadline over the whole answer: headers followed by a silent body still time out', async () => {
    const target = await receiver((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial');
    });
    const result = await sendWebhook({ url: target.url, body: BODY, secret: SECRET, allowLoopback: true, timeoutMs: 300 });
    expect(result).to.include({ ok: false, error: 'timed out after 300 ms' });
    expect(result.durationMs).to.be.at.least(250).and.below(5_000);
  });

  it('never sends through a proxy named by the environment', async () => {
    const proxy = await receiver();
    const target = await receiver();
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    process.env.HTTP_PROXY = proxy.url;
    process.env.http_proxy = proxy.url;
    try {
      const result = await sendWebhook({ url: `${target.url}/in`, body: BODY, secret: SECRET, allowLoopback: true });
      expect(result).to.include({ ok: true, statusCode: 200 });
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    expect(target.requests).to.have.length(1);
    expect(proxy.requests).to.have.length(0);
  });

  it('reports a refused connection as a failed attempt', async () => {
    const closed = await startReceiver();
    await closed.close();
    const result = await sendWebhook({ url: closed.url, body: BODY, secret: SECRET, allowLoopback: true });
    expect(result.ok).to.equal(false);
    expect(result.error).to.include('connection refused');
    expect(result.statusCode).to.equal(undefined);
  });

  it('redacts the secret when the receiver echoes it back', async () => {
    const target = await receiver((_req, res) => res.writeHead(400).end(`bad signature for key ${SECRET}; expected ${SECRET}`));
    const result = await sendWebhook({ url: target.url, body: BODY, secret: SECRET, allowLoopback: true });
    expect(result.ok).to.equal(false);
    expect(result.responseExcerpt).to.equal('bad signature for key [redacted]; expected [redacted]');
    expect(JSON.stringify(result)).to.not.include(SECRET);
  });

  it('keeps no part of a secret that straddles the excerpt limit', async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end('a'.repeat(495) + SECRET));
    const result = await sendWebhook({ url: target.url, body: BODY, secret: SECRET, allowLoopback: true });
    expect(result.responseExcerpt).to.have.length(500);
    expect(result.responseExcerpt).to.not.include(SECRET.slice(0, 5));
  });

  it('reads only the start of a large answer and keeps at most 500 characters', async () => {
    let written = 0;
    const target = await receiver((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      // Streams up to 8 MB unless the client goes away.
      const chunk = 'z'.repeat(64 * 1024);
      const pump = () => {
        while (written < 8 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const result = await sendWebhook({ url: target.url, body: BODY, secret: SECRET, allowLoopback: true });
    expect(result).to.include({ ok: true, statusCode: 200 });
    expect(result.responseExcerpt).to.equal('z'.repeat(500));
    expect(written).to.be.below(8 * 1024 * 1024);
  });

  it('refuses a loopback receiver before connecting when loopback is not allowed', async () => {
    const target = await receiver();
    const result = await sendWebhook({ url: target.url, body: BODY, secret: SECRET, allowLoopback: false });
    expect(result).to.deep.include({ ok: false, error: REFUSED_ADDRESS_MESSAGE });
    expect(result.statusCode).to.equal(undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(target.requests).to.have.length(0);
  });

  it('answers ok: false, without throwing, for a URL with an unsupported scheme', async () => {
    const result = await sendWebhook({ url: 'ftp://127.0.0.1/', body: BODY, secret: SECRET, allowLoopback: true });
    expect(result).to.deep.include({ ok: false, error: 'url must use http or https' });
  });

  it('resolves localhost once and connects to the checked address, keeping the Host header', async () => {
    const first = await new Promise<dns.LookupAddress[]>((resolve, reject) =>
      dns.lookup('localhost', { all: true, verbatim: true }, (err, list) => (err ? reject(err) : resolve(list))),
    );
    const target = await receiver(answerOk, first[0].address);
    const lookup = sinon.spy(dns, 'lookup');
    const result = await sendWebhook({ url: `http://localhost:${target.port}/in`, body: BODY, secret: SECRET, allowLoopback: true });
    expect(result).to.include({ ok: true, statusCode: 200 });
    expect(lookup.callCount).to.equal(1);
    expect(target.requests).to.have.length(1);
    expect(target.requests[0].headers.host).to.equal(`localhost:${target.port}`);
  });

  it('does not look the host up a second time, so a rebinding answer is never used', async () => {
    const target = await receiver();
    // The first answer is the checked one; any later lookup would point at an internal address.
    const lookup = sinon.stub(dns, 'lookup');
    lookup
      .onFirstCall()
      .callsFake(((_host: string, _opts: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) =>
        process.nextTick(() => cb(null, [{ address: '127.0.0.1', family: 4 }]))) as unknown as typeof dns.lookup);
    lookup.callsFake(((_host: string, _opts: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) =>
      process.nextTick(() => cb(null, [{ address: '10.0.0.1', family: 4 }]))) as unknown as typeof dns.lookup);

    const result = await sendWebhook({ url: `http://hooks.example.test:${target.port}/in`, body: BODY, secret: SECRET, allowLoopback: true, timeoutMs: 2_000 });
    expect(result).to.include({ ok: true, statusCode: 200 });
    expect(lookup.callCount).to.equal(1);
    expect(target.requests[0].headers.host).to.equal(`hooks.example.test:${target.port}`);
  });
});

describe('signBody and verifySignature', () => {
  it('signs the UTF-8 bytes of the body as sha256=<hex>', () => {
    const signature = signBody(BODY, SECRET);
    expect(signature).to.match(/^sha256=[0-9a-f]{64}$/);
    expect(signature).to.equal(signBody(Buffer.from(BODY, 'utf8'), SECRET));
    expect(verifySignature(BODY, SECRET, signature)).to.equal(true);
  });

  it('rejects another secret, an altered body and malformed headers', () => {
    const signature = signBody(BODY, SECRET);
    expect(verifySignature(BODY, 'whsec_other', signature)).to.equal(false);
    expect(verifySignature(BODY + ' ', SECRET, signature)).to.equal(false);
    for (const header of [undefined, null, '', signature.slice(7), 'sha1=' + signature.slice(7), signature.slice(0, -2), `${signature}00`]) {
      expect(verifySignature(BODY, SECRET, header), String(header)).to.equal(false);
    }
  });
});

/**
 * The browser suites' Chromium reaches this machine and nothing else (tools/test/chromium.ts): what a page
 * asks of any other host fails in the browser, without leaving the machine, and is recorded as blocked, which
 * is what every page suite asserts to be empty.
 */
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { useBrowser } from '../../support/browser';

describe('Pages: the browser has no network beyond the machine', () => {
  const browser = useBrowser('Pages: the browser has no network beyond the machine');
  // A page of our own with no Content-Security-Policy: the pages' own would stop these requests before the network.
  const server = http.createServer((req, res) => {
    if (req.url === '/ping') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('pong');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>blank</title>');
  });
  let origin: string;
  before((done) => void server.listen(0, '127.0.0.1', () => ((origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`), done())));
  after((done) => void server.close(() => done()));

  it('refuses a request to another host by name or by address, over http, https and ws, and records each; loopback still answers', async () => {
    const bp = await browser.newPage();
    await bp.page.goto(`${origin}/`);
    const errors = new Set<string>();
    bp.page.on('requestfailed', (req) => errors.add(req.failure()?.errorText ?? ''));
    const outside = ['http://example.com/', 'https://example.org/x.js', 'http://93.184.216.34/', 'http://[2606:4700::1111]/'];
    const outcomes = await bp.page.evaluate(async (urls: string[]) => {
      const tries = urls.map((url) =>
        fetch(url, { mode: 'no-cors' }).then(
          () => 'answered',
          () => 'failed',
        ),
      );
      const socket = new Promise<string>((resolve) => {
        const ws = new WebSocket('ws://example.net/socket');
        ws.onopen = () => resolve('open');
        ws.onerror = () => resolve('failed');
      });
      const local = fetch('/ping').then((res) => res.text());
      return { outside: await Promise.all(tries), socket: await socket, local: await local };
    }, outside);

    expect(outcomes).to.deep.equal({ outside: outside.map(() => 'failed'), socket: 'failed', local: 'pong' });
    expect([...bp.blockedRequests].sort()).to.deep.equal([...outside, 'ws://example.net/socket'].sort());
    expect(bp.failedRequests, 'the local request is not a failure').to.deep.equal([]);
    // Sent to the proxy that is not there, not to the network.
    expect([...errors]).to.deep.equal(['net::ERR_PROXY_CONNECTION_FAILED']);
  });
});

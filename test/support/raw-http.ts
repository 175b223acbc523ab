/**
 * Requests whose target and body go out exactly as written. `fetch` normalises a URL before sending it
 * (`/./`, `/../`, `%2e`, backslashes), and compresses nothing on request: the path-spelling and body-encoding
 * tests need both sent raw. Answers come back as the API client's `ApiResponse`, so the shared assertions apply.
 * `rawExchange` goes further: bytes on a socket, for requests no HTTP client would send.
 */
import http from 'node:http';
import net from 'node:net';
import type { ApiResponse } from './api';
import { system } from './hooks';

export interface RawOptions {
  baseUrl?: string;
  headers?: Record<string, string>;
  token?: string;
  apiKey?: string;
  /** Sent as is; a plain object is sent as JSON. */
  body?: string | Buffer | object;
}

export function rawRequest<T = any>(method: string, target: string, opts: RawOptions = {}): Promise<ApiResponse<T>> {
  const base = new URL(opts.baseUrl ?? system().url);
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  let body: string | Buffer | undefined;
  if (typeof opts.body === 'string' || Buffer.isBuffer(opts.body)) body = opts.body;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, method, path: target, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const json = (res.headers['content-type'] ?? '').includes('json') && text !== '';
        resolve({ status: res.statusCode ?? 0, body: (json ? JSON.parse(text) : text) as T, headers: responseHeaders });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Sends `bytes` on a new connection to `url` and answers what came back until the server closed it: its status
 * line, its header lines and its body parsed as JSON.
 */
export async function rawExchange(url: string, bytes: string): Promise<{ status: string; headers: string; body: any }> {
  const text = await rawText(url, bytes);
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split);
  return { status: head.split('\r\n')[0], headers: head, body: JSON.parse(text.slice(split + 4)) };
}

/** Everything the server sends back to `bytes` until it closes the connection (several answers, for pipelined requests). */
export function rawText(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

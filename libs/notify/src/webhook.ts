/**
 * The webhook sender: one signed POST of an exact body to a checked address (docs/decisions/0003-delivery-outbox.md),
 * sent with axios through an agent of its own.
 *
 * - The URL is checked again at send time and the connection goes to the address that was checked: the agent's
 *   `lookup` hands that address to the socket, so there is no second DNS query, while the Host header and
 *   TLS SNI/certificate checks still use the URL's host name. No proxy of the environment is used.
 * - Redirects are never followed; a 3xx is a failed attempt.
 * - One deadline covers resolution, connection and the answer (status, headers and the part of the body read);
 *   an attempt still unfinished when it passes is a failure, whatever status had arrived.
 * - At most RESPONSE_READ_LIMIT bytes of the answer are read, and the stored excerpt is short and has the
 *   channel secret redacted.
 * It never throws for a network, HTTP or SSRF failure: those come back as `ok: false` with a plain `error`.
 */
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { AxiosResponse, AxiosStatic } from 'axios';
import { redactCutTail, redactSecrets } from './redact';
import { SsrfError, assertPublicUrl, type ResolvedTarget } from './ssrf';
import { SIGNATURE_HEADER, signBody } from './signing';
import { withoutTracePropagation } from '@pi/common/core';

export const WEBHOOK_USER_AGENT = 'pi-inventory-webhooks/1';
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Bytes of the receiver's answer read at most; the rest is never downloaded. */
export const RESPONSE_READ_LIMIT = 2048;
/** Characters of the answer kept in `responseExcerpt`. */
export const RESPONSE_EXCERPT_CHARS = 500;
export const EVENT_ID_HEADER = 'X-PI-Event-Id';

export interface WebhookRequest {
  url: string;
  /** The exact JSON text to send; it is what gets signed. */
  body: string;
  /** The channel secret (plain text), used for the signature only. */
  secret: string;
  /** Deadline for the whole attempt (resolution, connection, answer). Default 10 000 ms. */
  timeoutMs?: number;
  /** Accept loopback receivers (tests and development only). */
  allowLoopback: boolean;
  userAgent?: string;
  /** Sent as `X-PI-Event-Id` when given. */
  eventId?: string;
}

export interface WebhookResult {
  /** True when the receiver answered 2xx. */
  ok: boolean;
  statusCode?: number;
  /** Why the attempt failed, in plain words; never contains the secret. */
  error?: string;
  /** Start of the receiver's answer (≤ 500 characters), secret redacted. */
  responseExcerpt?: string;
  durationMs: number;
}

type Outcome = Omit<WebhookResult, 'durationMs'>;

/** POSTs `body` once to `url`, signed with `secret`. Resolves with the outcome; see the module header. */
export async function sendWebhook(request: WebhookRequest): Promise<WebhookResult> {
  const { url, body, secret, timeoutMs = WEBHOOK_TIMEOUT_MS, allowLoopback, userAgent, eventId } = request;
  if (typeof secret !== 'string' || secret === '') throw new TypeError('sendWebhook needs a non-empty secret');
  if (typeof body !== 'string') throw new TypeError('sendWebhook needs the body as a string');
  const started = performance.now();
  const abort = new AbortController();
  let agent: http.Agent | undefined;

  return new Promise<WebhookResult>((resolve) => {
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      abort.abort(); // stops the request and the download, whatever stage they are at
      agent?.destroy();
      const result: WebhookResult = { ...outcome, durationMs: Math.round(performance.now() - started) };
      if (result.error !== undefined) result.error = redact(result.error, secret, false);
      resolve(result);
    };
    const timer = setTimeout(() => settle({ ok: false, error: `timed out after ${timeoutMs} ms` }), timeoutMs);

    assertPublicUrl(url, { allowLoopback }).then(
      (target) => {
        if (settled) return;
        agent = pinnedAgent(target);
        post(target, agent, body, secret, userAgent ?? WEBHOOK_USER_AGENT, eventId, abort.signal).then(
          (response) => readAnswer(response, secret, settle),
          (err: unknown) => settle({ ok: false, error: describeError(err) }),
        );
      },
      (err: unknown) => {
        settle({ ok: false, error: err instanceof SsrfError ? err.message : 'url could not be checked' });
      },
    );
  });
}

/**
 * A one-attempt agent whose sockets connect to the checked address only: its `lookup` replaces dns.lookup, so
 * there is no second query, while the Host header and TLS SNI/certificate checks still use the URL's host name.
 * A fresh agent per attempt: a pooled socket could have been opened for another resolution.
 */
function pinnedAgent({ url, address, family }: ResolvedTarget): http.Agent {
  // Node 20 asks for `all: true` when it auto-selects a family.
  const lookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as net.LookupFunction;
  const options = { keepAlive: false, lookup };
  return url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

/**
 * axios, loaded on the first send: a process that loads @pi/notify (the monitor, the notifier, check_rules, the
 * standalone launcher) does not pay for loading it at start, only once it sends a webhook.
 */
let axiosLoaded: AxiosStatic | undefined;
function loadAxios(): AxiosStatic {
  // Its CommonJS build (the one a static import would load), required on first use.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start (above)
  axiosLoaded ??= require('axios') as AxiosStatic;
  return axiosLoaded;
}

function post(
  { url }: ResolvedTarget,
  agent: http.Agent,
  body: string,
  secret: string,
  userAgent: string,
  eventId: string | undefined,
  signal: AbortSignal,
): Promise<AxiosResponse<Readable>> {
  const bytes = Buffer.from(body, 'utf8');
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json',
    'Content-Length': bytes.length,
    'User-Agent': userAgent,
    [SIGNATURE_HEADER]: signBody(bytes, secret),
  };
  if (eventId !== undefined) headers[EVENT_ID_HEADER] = eventId;
  const axios = loadAxios();
  // Receivers are other parties' servers: our trace headers are not theirs to see (docs/operations/tracing.md).
  return withoutTracePropagation(() =>
    axios.request<Readable>({
      method: 'POST',
      url: url.href,
      data: bytes, // sent as is: these are the bytes that were signed
      headers,
      adapter: 'http',
      httpAgent: agent,
      httpsAgent: agent,
      proxy: false, // never through an HTTP(S)_PROXY of the environment: the connection goes to the checked address
      maxRedirects: 0, // a 3xx is an answer (a failed attempt), never followed
      validateStatus: () => true, // every status is an outcome to record, not an exception
      responseType: 'stream', // read by readAnswer, which stops at RESPONSE_READ_LIMIT
      decompress: false,
      signal,
    }),
  );
}

function readAnswer(response: AxiosResponse<Readable>, secret: string, settle: (outcome: Outcome) => void): void {
  const statusCode = response.status;
  const stream = response.data;
  const chunks: Buffer[] = [];
  let received = 0;
  let cut = false;
  const done = () => {
    const outcome: Outcome = { ok: statusCode >= 200 && statusCode < 300, statusCode };
    if (statusCode >= 300 && statusCode < 400) outcome.error = `redirect not followed (HTTP ${statusCode})`;
    else if (!outcome.ok) outcome.error = `receiver answered HTTP ${statusCode}`;
    const excerpt = makeExcerpt(Buffer.concat(chunks), secret, cut);
    if (excerpt !== '') outcome.responseExcerpt = excerpt;
    settle(outcome);
  };
  stream.on('data', (chunk: Buffer) => {
    if (cut) return;
    const room = RESPONSE_READ_LIMIT - received;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    received += Math.min(chunk.length, room);
    if (received >= RESPONSE_READ_LIMIT) {
      cut = true;
      stream.destroy();
      done(); // settle() aborts the request and destroys the agent's socket, which stops the download.
    }
  });
  stream.on('end', done);
  // The answer was cut short (or we cut it): what the status line said still stands.
  stream.on('error', done);
  stream.on('aborted', done);
  stream.on('close', done);
}

function makeExcerpt(bytes: Buffer, secret: string, readCut: boolean): string {
  let text = redact(bytes.toString('utf8'), secret, readCut);
  if (text.length > RESPONSE_EXCERPT_CHARS) text = redact(text.slice(0, RESPONSE_EXCERPT_CHARS), secret, true);
  return text;
}

/** Replaces every occurrence of `secret`, and when the text was cut, a tail that starts it (see redact.ts). */
function redact(text: string, secret: string, cut: boolean): string {
  const out = redactSecrets(text, [secret]);
  return cut ? redactCutTail(out, [secret]) : out;
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  EPIPE: 'connection closed by the receiver',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'receiver host unreachable',
  ENETUNREACH: 'receiver network unreachable',
  EADDRNOTAVAIL: 'receiver address not available',
};

/** Why a request got no answer, in plain words; axios keeps the socket's error code on its error. */
function describeError(err: unknown): string {
  if (!(err instanceof Error)) return 'request failed';
  const cause = (err as { cause?: unknown }).cause;
  const code = (err as NodeJS.ErrnoException).code ?? (cause instanceof Error ? (cause as NodeJS.ErrnoException).code : undefined) ?? '';
  if (NETWORK_ERRORS[code]) return `${NETWORK_ERRORS[code]} (${code})`;
  if (code.startsWith('HPE_')) return `invalid HTTP answer from the receiver (${code})`;
  if (/CERT|TLS|SSL/.test(code) || /certificate|tls|ssl/i.test(err.message)) return `TLS error: ${err.message}`;
  return `request failed: ${err.message}${code && !err.message.includes(code) ? ` (${code})` : ''}`;
}

/**
 * The webhook sender: one signed POST of an exact body to a checked address (docs/decisions/0003-delivery-outbox.md).
 *
 * - The URL is checked again at send time and the connection goes to the address that was checked: a custom
 *   `lookup` hands that address to the socket, so there is no second DNS query, while the Host header and
 *   TLS SNI/certificate checks still use the URL's host name.
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
import { redactCutTail, redactSecrets } from './redact';
import { SsrfError, assertPublicUrl, type ResolvedTarget } from './ssrf';
import { SIGNATURE_HEADER, signBody } from './signing';

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

  return new Promise<WebhookResult>((resolve) => {
    let settled = false;
    let outgoing: http.ClientRequest | undefined;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing?.destroy();
      const result: WebhookResult = { ...outcome, durationMs: Math.round(performance.now() - started) };
      if (result.error !== undefined) result.error = redact(result.error, secret, false);
      resolve(result);
    };
    const timer = setTimeout(() => settle({ ok: false, error: `timed out after ${timeoutMs} ms` }), timeoutMs);

    assertPublicUrl(url, { allowLoopback }).then(
      (target) => {
        if (settled) return;
        try {
          outgoing = post(target, body, secret, userAgent ?? WEBHOOK_USER_AGENT, eventId, settle);
        } catch (err) {
          // e.g. a header value Node refuses; nothing was sent.
          settle({ ok: false, error: `request could not be made: ${(err as Error).message}` });
        }
      },
      (err: unknown) => {
        settle({ ok: false, error: err instanceof SsrfError ? err.message : 'url could not be checked' });
      },
    );
  });
}

function post(
  target: ResolvedTarget,
  body: string,
  secret: string,
  userAgent: string,
  eventId: string | undefined,
  settle: (outcome: Outcome) => void,
): http.ClientRequest {
  const { url, address, family } = target;
  const bytes = Buffer.from(body, 'utf8');
  const headers: http.OutgoingHttpHeaders = {
    'Content-Type': 'application/json',
    'Content-Length': bytes.length,
    'User-Agent': userAgent,
    [SIGNATURE_HEADER]: signBody(bytes, secret),
  };
  if (eventId !== undefined) headers[EVENT_ID_HEADER] = eventId;

  // Called by the socket instead of dns.lookup. Node 20 asks for `all: true` when it auto-selects a family.
  const pinnedLookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as net.LookupFunction;

  const isHttps = url.protocol === 'https:';
  const options: https.RequestOptions = {
    method: 'POST',
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (isHttps ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers,
    lookup: pinnedLookup,
    // A fresh connection per attempt: a pooled socket could have been opened for another resolution.
    agent: false,
  };
  const outgoing = (isHttps ? https : http).request(options, (response) => readAnswer(response, secret, settle));
  outgoing.on('error', (err) => settle({ ok: false, error: describeNetworkError(err) }));
  outgoing.end(bytes);
  return outgoing;
}

function readAnswer(response: http.IncomingMessage, secret: string, settle: (outcome: Outcome) => void): void {
  const statusCode = response.statusCode ?? 0;
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
  response.on('data', (chunk: Buffer) => {
    if (cut) return;
    const room = RESPONSE_READ_LIMIT - received;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    received += Math.min(chunk.length, room);
    if (received >= RESPONSE_READ_LIMIT) {
      cut = true;
      done(); // settle() destroys the request, which stops the download.
    }
  });
  response.on('end', done);
  // The answer was cut short (or we cut it): what the status line said still stands.
  response.on('error', done);
  response.on('aborted', done);
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

function describeNetworkError(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  if (NETWORK_ERRORS[code]) return `${NETWORK_ERRORS[code]} (${code})`;
  if (code.startsWith('HPE_')) return `invalid HTTP answer from the receiver (${code})`;
  if (/CERT|TLS|SSL/.test(code) || /certificate|tls|ssl/i.test(err.message)) return `TLS error: ${err.message}`;
  return `request failed: ${err.message}${code && !err.message.includes(code) ? ` (${code})` : ''}`;
}

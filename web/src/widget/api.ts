/**
 * The widget's calls: same origin, `/api/v1/widget/…`, the key in the `X-API-Key` header only (never in a URL,
 * never in a body). Errors become `ApiError`s carrying the service's `{error, code, details, retry_after}`.
 */
import type { ExchangeAnswer } from './types.js';

const PREFIX = '/api/v1/widget/';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** Seconds to wait (429), from `retry_after` or `Retry-After`. */
    readonly retryAfter?: number,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** 0: the service could not be reached (or answered something that is not ours). */
export const NETWORK_ERROR = 0;

async function send<T>(method: string, path: string, init: { key?: string; query?: Record<string, string | undefined>; body?: unknown; idempotencyKey?: string }): Promise<T> {
  const url = new URL(PREFIX + path, window.location.origin);
  for (const [name, value] of Object.entries(init.query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(name, value);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (init.key) headers['X-API-Key'] = init.key;
  if (init.idempotencyKey) headers['Idempotency-Key'] = init.idempotencyKey;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error',
    });
  } catch {
    throw new ApiError(NETWORK_ERROR, 'network_error', 'The inventory service could not be reached. Check the connection and try again.');
  }
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> | undefined;
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    body = undefined;
  }
  if (res.ok && body !== undefined) return body as T;
  const header = Number(res.headers.get('retry-after'));
  const retryAfter = typeof body?.retry_after === 'number' ? body.retry_after : Number.isFinite(header) && header > 0 ? header : undefined;
  if (res.ok) throw new ApiError(res.status, 'bad_answer', 'The service answered something unexpected.');
  throw new ApiError(
    res.status,
    typeof body?.code === 'string' ? body.code : 'http_error',
    typeof body?.error === 'string' ? body.error : `The service answered ${res.status} ${res.statusText}.`,
    body?.details && typeof body.details === 'object' ? (body.details as Record<string, unknown>) : {},
    retryAfter,
    typeof body?.request_id === 'string' ? body.request_id : undefined,
  );
}

/** `POST exchange_token/`: the one-time redirect token of a scan for a scan key (no key needed). */
export function exchangeToken(token: string): Promise<ExchangeAnswer> {
  return send<ExchangeAnswer>('POST', 'exchange_token/', { body: { token } });
}

export class WidgetApi {
  /** Called with every 401 (the key was revoked, rotated or expired). */
  onUnauthorized: ((err: ApiError) => void) | undefined;

  constructor(private readonly key: string) {}

  async get<T>(path: string, query?: Record<string, string | undefined>): Promise<T> {
    return this.guard(send<T>('GET', path, { key: this.key, query }));
  }

  async post<T>(path: string, body: Record<string, unknown>, idempotencyKey?: string): Promise<T> {
    return this.guard(send<T>('POST', path, { key: this.key, body, idempotencyKey }));
  }

  private async guard<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) this.onUnauthorized?.(err);
      throw err;
    }
  }
}

/**
 * A fresh Idempotency-Key: one per user action. From `crypto.getRandomValues`, which (unlike
 * `crypto.randomUUID`) also exists on plain-http LAN addresses.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `widget-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The pages' one API client (the widget's and the dashboard's): same-origin JSON calls, never with cookies
 * or a cached answer, whose refusals become `ApiError`s carrying the service's `{error, code, details,
 * request_id}`. Who is calling is the caller's `Credentials` (the widget's API key header, the dashboard's
 * bearer token, renewed once after a 401).
 *
 * Bookings are safe to retry (docs/operations/pages.md): a request sent with an `Idempotency-Key` whose outcome is
 * unknown — the network failed, or the gateway answered 502, 503 or 504 (`upstream_timeout`,
 * `service_unavailable`, `outcome_unknown`) — is sent again with the SAME key, up to MAX_ATTEMPTS times with
 * a growing pause, and `onRetry` tells the page so that it can say so. The service books a key once and
 * answers a repeat with the first answer, so however many attempts reach it, the action books once.
 */
import type { Schema } from './api-types.js';

/** The service's error body; `request_id` is missing on errors made here (the network failed). */
export type ErrorBody = Omit<Schema<'Error'>, 'request_id'> & { request_id?: string };

/** The status of an ApiError when no answer came (the network failed, or the answer was not ours). */
export const NETWORK_ERROR = 0;

/** Answers after which a booking's outcome is unknown, so it is retried with its key (with a network failure). */
const OUTCOME_UNKNOWN = new Set([502, 503, 504]);

/** Attempts of one booking, and the pauses between them (before jitter); a `Retry-After` up to 30 s wins. */
export const MAX_ATTEMPTS = 4;
export const RETRY_PAUSES_MS = [1000, 2000, 4000];
const MAX_RETRY_AFTER_MS = 30_000;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.error);
    this.name = 'ApiError';
  }
  get code(): string {
    return this.body.code;
  }
  get details(): Record<string, unknown> {
    return this.body.details;
  }
  get requestId(): string | undefined {
    return this.body.request_id;
  }
  /** Seconds to wait (429, and some 503s): from `retry_after` or the `Retry-After` header. */
  get retryAfter(): number | undefined {
    return this.body.retry_after;
  }
  /** The request may or may not have been carried out: a retry is safe only with the same Idempotency-Key. */
  get outcomeUnknown(): boolean {
    return this.status === NETWORK_ERROR || OUTCOME_UNKNOWN.has(this.status);
  }
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RetryNotice {
  /** The attempt about to be made (2 for the first retry). */
  attempt: number;
  attempts: number;
  /** The pause before it. */
  delayMs: number;
  /** Why the last attempt's outcome is unknown. */
  error: ApiError;
}

export interface RequestOptions {
  query?: Query;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, with `contentType`. */
  rawBody?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
  /** Without credentials (sign-in, token exchange): a 401 is then the answer itself. */
  anonymous?: boolean;
  /** A booking: sent with this key, and retried with it while its outcome is unknown (see the file comment). */
  idempotencyKey?: string;
  /** Called before each retry of a booking. */
  onRetry?: (notice: RetryNotice) => void;
}

/** How requests are authenticated. */
export interface Credentials {
  /** The headers that carry them (may throw an ApiError when there are none). */
  headers(): Record<string, string>;
  /** After a 401: gets new ones, answering whether the request is worth one more try. */
  renew?(): Promise<boolean>;
}

export interface ClientOptions {
  /** Put before every path (the widget's `/api/v1/widget/`). */
  prefix?: string;
  credentials?: Credentials;
  /** A 401 that stands (after renewing): the key or the session is no longer valid. */
  onUnauthorized?(err: ApiError): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function buildUrl(path: string, query: Query = {}): string {
  const url = new URL(path, window.location.origin);
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    url.searchParams.set(key, String(value));
  }
  return url.pathname + url.search;
}

async function readJson(res: Response): Promise<{ json: unknown; ok: boolean }> {
  const text = await res.text().catch(() => '');
  if (!text) return { json: null, ok: true };
  try {
    return { json: JSON.parse(text), ok: true };
  } catch {
    return { json: undefined, ok: false };
  }
}

/** The ApiError of a refusal: the service's error body, or a message of our own when the answer is not one. */
function errorOf(res: Response, json: unknown): ApiError {
  const header = Number(res.headers.get('retry-after'));
  const retryAfter = Number.isFinite(header) && header > 0 ? header : undefined;
  const b = json as Partial<ErrorBody> | null | undefined;
  if (b && typeof b === 'object' && typeof b.error === 'string') {
    return new ApiError(res.status, {
      ...b,
      error: b.error,
      code: typeof b.code === 'string' ? b.code : 'http_error',
      details: b.details && typeof b.details === 'object' ? b.details : {},
      retry_after: typeof b.retry_after === 'number' ? b.retry_after : retryAfter,
    });
  }
  return new ApiError(res.status, {
    error: `The service answered ${res.status} ${res.statusText}.`.replace(' .', '.'),
    code: 'http_error',
    details: {},
    request_id: res.headers.get('x-request-id') ?? undefined,
    retry_after: retryAfter,
  });
}

export function networkError(): ApiError {
  return new ApiError(NETWORK_ERROR, {
    error: 'The inventory service could not be reached. Check the connection and try again.',
    code: 'network_error',
    details: {},
  });
}

/** The pause before retrying a booking after `err` on attempt `attempt`, or undefined when it is not retried. */
export function retryPause(err: unknown, attempt: number): number | undefined {
  if (!(err instanceof ApiError) || !err.outcomeUnknown || attempt >= MAX_ATTEMPTS) return undefined;
  if (err.retryAfter) return Math.min(err.retryAfter * 1000, MAX_RETRY_AFTER_MS);
  // ±20 %, so that many pages cut off by the same outage do not all come back at once.
  return Math.round(RETRY_PAUSES_MS[attempt - 1] * (0.8 + Math.random() * 0.4));
}

export class ApiClient {
  constructor(private readonly options: ClientOptions = {}) {}

  /** One HTTP exchange with the credentials (renewed once after a 401); any status is answered. */
  async raw(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const url = buildUrl((this.options.prefix ?? '') + path, opts.query);
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    let body: BodyInit | undefined;
    if (opts.rawBody !== undefined) {
      body = opts.rawBody;
      if (opts.contentType) headers['content-type'] = opts.contentType;
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    const credentials = opts.anonymous ? undefined : this.options.credentials;
    const attempt = async () => {
      const init: RequestInit = { method, headers: { ...headers, ...credentials?.headers() }, body, credentials: 'omit', cache: 'no-store', redirect: 'error' };
      try {
        return await fetch(url, init);
      } catch {
        throw networkError();
      }
    };
    const res = await attempt();
    if (res.status !== 401 || !credentials?.renew || !(await credentials.renew())) return res;
    return attempt();
  }

  /** A JSON request: the parsed answer (null when empty); a refusal is thrown as an ApiError. Bookings are retried. */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once<T>(method, path, opts);
      } catch (err) {
        const pause = opts.idempotencyKey ? retryPause(err, attempt) : undefined;
        if (pause === undefined) throw err;
        opts.onRetry?.({ attempt: attempt + 1, attempts: MAX_ATTEMPTS, delayMs: pause, error: err as ApiError });
        await sleep(pause);
      }
    }
  }

  private async once<T>(method: string, path: string, opts: RequestOptions): Promise<T> {
    const res = await this.raw(method, path, opts);
    const { json, ok } = await readJson(res);
    if (!res.ok) throw this.refused(res, json, opts);
    // A 2xx that is not JSON is not the service's (a proxy's page, say): nothing is known about the request.
    if (!ok) throw new ApiError(NETWORK_ERROR, { error: 'The service answered something unexpected.', code: 'bad_answer', details: {} });
    return json as T;
  }

  private refused(res: Response, json: unknown, opts: RequestOptions): ApiError {
    const err = errorOf(res, json);
    if (err.status === 401 && !opts.anonymous) this.options.onUnauthorized?.(err);
    return err;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  post<T>(path: string, body: unknown = {}, opts: RequestOptions = {}): Promise<T> {
    return this.request<T>('POST', path, { ...opts, body });
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, { body });
  }

  del(path: string): Promise<null> {
    return this.request<null>('DELETE', path);
  }

  /**
   * A file answer (exports, label sheets): its bytes and the name from `Content-Disposition`. With
   * `onProgress`, the body is read piece by piece as it streams in, and each piece is reported (its bytes).
   */
  async download(path: string, query?: Query, onProgress?: (chunk: Uint8Array) => void): Promise<{ blob: Blob; filename: string | null }> {
    const opts: RequestOptions = { query, headers: { accept: '*/*' } };
    const res = await this.raw('GET', path, opts);
    if (!res.ok) throw this.refused(res, (await readJson(res)).json, opts);
    const match = /filename="?([^";]+)"?/i.exec(res.headers.get('content-disposition') ?? '');
    const filename = match ? match[1] : null;
    if (!onProgress || !res.body) return { blob: await res.blob(), filename };
    const reader = res.body.getReader();
    const parts: Uint8Array[] = [];
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch {
        // The service cuts the connection when an export fails midway: never save a partial file.
        throw networkError();
      }
      if (read.done) break;
      parts.push(read.value);
      onProgress(read.value);
    }
    return { blob: new Blob(parts as BlobPart[], { type: res.headers.get('content-type') ?? undefined }), filename };
  }
}

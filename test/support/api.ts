/** A small HTTP client for the tests: JSON in, `{status, body, headers}` out, against the test gateway. */
import { system } from './hooks';
import { checkAgainstDocument } from './openapi';

export interface ApiOptions {
  token?: string;
  apiKey?: string;
  body?: unknown;
  /** Sent as is (for malformed JSON and oversized bodies). */
  rawBody?: string;
  headers?: Record<string, string>;
  baseUrl?: string;
  /** Skip the OpenAPI check (support/openapi.ts): only for answers deliberately outside the document. */
  undocumented?: boolean;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function api<T = any>(method: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${opts.baseUrl ?? system().url}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  const contentType = res.headers.get('content-type') ?? '';
  if (contentType.includes('json') && text) parsed = JSON.parse(text);
  if (!opts.undocumented) checkAgainstDocument({ method, path, status: res.status, contentType, text, body: parsed });
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** `res`, when its status is `status`; otherwise an error naming `what` and showing the body. */
export function expectStatus<T>(res: ApiResponse<T>, status: number, what: string): ApiResponse<T> {
  if (res.status !== status)
    throw new Error(`${what}: expected ${status}, got ${res.status}: ${typeof res.body === 'string' ? res.body.slice(0, 500) : JSON.stringify(res.body)}`);
  return res;
}

export const get = <T = any>(path: string, opts?: ApiOptions) => api<T>('GET', path, opts);
export const post = <T = any>(path: string, body?: unknown, opts?: ApiOptions) => api<T>('POST', path, { ...opts, body });
export const patch = <T = any>(path: string, body?: unknown, opts?: ApiOptions) => api<T>('PATCH', path, { ...opts, body });
export const put = <T = any>(path: string, body?: unknown, opts?: ApiOptions) => api<T>('PUT', path, { ...opts, body });
export const del = <T = any>(path: string, opts?: ApiOptions) => api<T>('DELETE', path, opts);

/**
 * The dashboard's API client: same-origin calls with `Authorization: Bearer <access>`. The tokens live in this
 * tab's sessionStorage (never in a URL or a cookie), so a reload keeps the session and closing the tab ends it.
 * A 401 refreshes the access token once (`POST /api/token/refresh/`, shared by concurrent calls) and retries;
 * when the refresh token is refused too, the session ends and the app asks for a new sign-in.
 */

export interface ErrorBody {
  error: string;
  code: string;
  details: Record<string, unknown>;
  request_id?: string;
  /** `invalid_engine_config`: every problem of the engine config, paths relative to it. */
  validation_errors?: { path: string; message: string }[];
  allowed_transitions?: string[];
  retry_after?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.error);
  }
  get code(): string {
    return this.body.code;
  }
  get requestId(): string | undefined {
    return this.body.request_id;
  }
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  query?: Query;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, with `contentType`. */
  rawBody?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
}

interface Tokens {
  access: string;
  refresh: string;
}

const STORAGE_KEY = 'pi-dashboard.tokens';

function readTokens(): Tokens | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    const parsed = raw ? (JSON.parse(raw) as Tokens) : null;
    return parsed && typeof parsed.access === 'string' && typeof parsed.refresh === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

let tokens: Tokens | null = readTokens();

function storeTokens(next: Tokens | null): void {
  tokens = next;
  try {
    if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused (private mode quotas): the tokens stay in memory for this page.
  }
}

const sessionEndListeners: Array<() => void> = [];

/** Called when the refresh token is refused: the user has to sign in again. */
export function onSessionEnd(listener: () => void): void {
  sessionEndListeners.push(listener);
}

export const hasSession = (): boolean => tokens !== null;

function endSession(): void {
  const had = tokens !== null;
  storeTokens(null);
  if (had) for (const listener of sessionEndListeners) listener();
}

export function signOut(): void {
  storeTokens(null);
}

export function buildUrl(path: string, query: Query = {}): string {
  const url = new URL(path, window.location.origin);
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    url.searchParams.set(key, String(value));
  }
  return url.pathname + url.search;
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function errorOf(res: Response, body: unknown): ApiError {
  if (body && typeof body === 'object' && typeof (body as ErrorBody).error === 'string') {
    const b = body as ErrorBody;
    return new ApiError(res.status, { ...b, details: b.details && typeof b.details === 'object' ? b.details : {} });
  }
  return new ApiError(res.status, {
    error: `The service answered ${res.status} ${res.statusText}.`.replace(' .', '.'),
    code: 'http_error',
    details: {},
    request_id: res.headers.get('x-request-id') ?? undefined,
  });
}

const networkError = () =>
  new ApiError(0, { error: 'The service could not be reached. Check the connection and try again.', code: 'network_error', details: {} });

async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, credentials: 'omit', cache: 'no-store' });
  } catch {
    throw networkError();
  }
}

/** `POST /api/token/`: stores `{access, refresh}` for this tab. */
export async function signIn(username: string, password: string): Promise<void> {
  const res = await send('/api/token/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const body = await readBody(res);
  if (!res.ok) throw errorOf(res, body);
  const { access, refresh } = body as Tokens;
  storeTokens({ access, refresh });
}

let refreshing: Promise<'ok' | 'refused'> | null = null;

/** One refresh at a time; every caller that got a 401 meanwhile waits for the same one. */
function refreshAccess(): Promise<'ok' | 'refused'> {
  refreshing ??= (async (): Promise<'ok' | 'refused'> => {
    const current = tokens;
    if (!current) return 'refused';
    const res = await send('/api/token/refresh/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh: current.refresh }),
    });
    const body = await readBody(res);
    if (res.status === 401) return 'refused';
    if (!res.ok) throw errorOf(res, body);
    // A sign-out (or another sign-in) meanwhile wins over this refresh.
    if (tokens === current) storeTokens({ access: (body as { access: string }).access, refresh: current.refresh });
    return 'ok';
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** Performs the request with the access token; on a 401, refreshes once and retries. Answers any status. */
export async function rawRequest(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
  const url = buildUrl(path, opts.query);
  let body: BodyInit | undefined;
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.rawBody !== undefined) {
    body = opts.rawBody;
    if (opts.contentType) headers['content-type'] = opts.contentType;
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const attempt = () => {
    if (!tokens) throw new ApiError(401, { error: 'You are signed out.', code: 'authentication_failed', details: {} });
    return send(url, { method, headers: { ...headers, authorization: `Bearer ${tokens.access}` }, body });
  };
  let res = await attempt();
  if (res.status !== 401) return res;
  if ((await refreshAccess()) === 'refused') {
    endSession();
    return res;
  }
  res = await attempt();
  if (res.status === 401) endSession();
  return res;
}

/** A JSON request; a non-2xx answer is thrown as an ApiError. Answers the parsed body (null when empty). */
export async function request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await rawRequest(method, path, opts);
  const body = await readBody(res);
  if (!res.ok) throw errorOf(res, body);
  return body as T;
}

export const get = <T = unknown>(path: string, query?: Query) => request<T>('GET', path, { query });
export const post = <T = unknown>(path: string, body: unknown = {}, opts: RequestOptions = {}) => request<T>('POST', path, { ...opts, body });
export const patch = <T = unknown>(path: string, body: unknown) => request<T>('PATCH', path, { body });
export const del = (path: string) => request<null>('DELETE', path);

/** A file answer (export, label sheets): its bytes and the name from `Content-Disposition`. */
export async function download(path: string, query?: Query): Promise<{ blob: Blob; filename: string | null }> {
  const res = await rawRequest('GET', path, { query, headers: { accept: '*/*' } });
  if (!res.ok) throw errorOf(res, await readBody(res));
  const disposition = res.headers.get('content-disposition') ?? '';
  const match = /filename="?([^";]+)"?/i.exec(disposition);
  return { blob: await res.blob(), filename: match ? match[1] : null };
}

/** Every page of a list (page_size 500), up to `limit` records: for the pickers of products and locations. */
export async function getAll<T>(path: string, query: Query = {}, limit = 5000): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; all.length < limit; page++) {
    const answer = await get<Page<T>>(path, { ...query, page, page_size: 500 });
    all.push(...answer.results);
    if (!answer.next || answer.results.length === 0) break;
  }
  return all;
}

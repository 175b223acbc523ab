/**
 * The dashboard's API calls: the pages' shared client (../kit/api.ts) with `Authorization: Bearer
 * <access>`. The tokens live in this tab's sessionStorage (never in a URL or a cookie), so a reload keeps the
 * session and closing the tab ends it. A 401 refreshes the access token once (`POST /api/token/refresh/`,
 * shared by concurrent calls) and retries; when the refresh token is refused too, the session ends and the
 * app asks for a new sign-in.
 */
import { ApiClient, ApiError, type Query, type RequestOptions } from '../kit/api.js';
import type { Answer, Page } from '../kit/api-types.js';

export { ApiError, type ErrorBody, type Query, type RequestOptions, type RetryNotice } from '../kit/api.js';
export type { Page } from '../kit/api-types.js';

type Tokens = Answer<'obtainToken'>;

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

let refreshing: Promise<boolean> | null = null;

/** One refresh at a time; every caller that got a 401 meanwhile waits for the same one. False: refused. */
function refreshAccess(): Promise<boolean> {
  refreshing ??= (async (): Promise<boolean> => {
    const current = tokens;
    if (!current) return false;
    try {
      const answer = await client.post<Answer<'refreshToken'>>('/api/token/refresh/', { refresh: current.refresh }, { anonymous: true });
      // A sign-out (or another sign-in) meanwhile wins over this refresh.
      if (tokens === current) storeTokens({ access: answer.access, refresh: current.refresh });
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return false;
      throw err;
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

const client = new ApiClient({
  credentials: {
    headers() {
      if (!tokens) throw new ApiError(401, { error: 'You are signed out.', code: 'authentication_failed', details: {} });
      return { authorization: `Bearer ${tokens.access}` };
    },
    renew: refreshAccess,
  },
  onUnauthorized: endSession,
});

/** `POST /api/token/`: stores `{access, refresh}` for this tab. */
export async function signIn(username: string, password: string): Promise<void> {
  storeTokens(await client.post<Tokens>('/api/token/', { username, password }, { anonymous: true }));
}

export const request = <T = unknown>(method: string, path: string, opts: RequestOptions = {}) => client.request<T>(method, path, opts);
export const get = <T = unknown>(path: string, query?: Query) => client.get<T>(path, query);
export const post = <T = unknown>(path: string, body: unknown = {}, opts: RequestOptions = {}) => client.post<T>(path, body, opts);
export const patch = <T = unknown>(path: string, body: unknown) => client.patch<T>(path, body);
export const del = (path: string) => client.del(path);
export const download = (path: string, query?: Query, onProgress?: (chunk: Uint8Array) => void) => client.download(path, query, onProgress);

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

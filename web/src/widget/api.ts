/**
 * The widget's calls: the pages' shared client (../kit/api.ts) on `/api/v1/widget/…`, same origin, the key
 * in the `X-API-Key` header only (never in a URL, never in a body).
 */
import { ApiClient, type ApiError, type Query, type RequestOptions } from '../kit/api.js';
import type { Answer } from '../kit/api-types.js';

export { ApiError, NETWORK_ERROR, type RequestOptions, type RetryNotice } from '../kit/api.js';

const PREFIX = '/api/v1/widget/';

/** `POST exchange_token/`: the one-time redirect token of a scan for a scan key (no key needed). */
export function exchangeToken(token: string): Promise<Answer<'exchangeQrToken'>> {
  return new ApiClient({ prefix: PREFIX }).post('exchange_token/', { token }, { anonymous: true });
}

export class WidgetApi {
  /** Called with every 401 (the key was revoked, rotated or expired). */
  onUnauthorized: ((err: ApiError) => void) | undefined;
  private readonly client: ApiClient;

  /**
   * `embeddingOrigin`: in an iframe, the origin of the page that handed over the key, as the browser gave
   * it. Each request names it, so that the key's `allowed_domains` judge that page, not this one
   * (docs/api/widget-embedding.md).
   */
  constructor(key: string, embeddingOrigin?: string) {
    const headers: Record<string, string> = { 'X-API-Key': key };
    if (embeddingOrigin !== undefined) headers['X-Embedding-Origin'] = embeddingOrigin;
    this.client = new ApiClient({
      prefix: PREFIX,
      credentials: { headers: () => headers },
      onUnauthorized: (err) => this.onUnauthorized?.(err),
    });
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.client.get<T>(path, query);
  }

  /** A booking passes `idempotencyKey` (and `onRetry`): see ../kit/api.ts. */
  post<T>(path: string, body: Record<string, unknown>, opts: RequestOptions = {}): Promise<T> {
    return this.client.post<T>(path, body, opts);
  }
}

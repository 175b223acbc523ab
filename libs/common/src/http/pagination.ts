/**
 * Core list endpoints answer `{count, next, previous, results}` (docs/api/conventions.md). Links are absolute, built
 * on PUBLIC_BASE_URL and the path the client called, keeping its other query parameters.
 */
import type { Request } from 'express';

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface PageRequest {
  page: number;
  page_size: number;
}

export function pageWindow({ page, page_size }: PageRequest) {
  return { limit: page_size, offset: (page - 1) * page_size };
}

export function buildPage<T>(req: Request, baseUrl: string, pageReq: PageRequest, count: number, results: T[]): Page<T> {
  const link = (page: number) => {
    const url = new URL(req.originalUrl, baseUrl);
    url.searchParams.delete('api_key');
    url.searchParams.set('page', String(page));
    url.searchParams.set('page_size', String(pageReq.page_size));
    return url.toString();
  };
  const lastPage = Math.max(1, Math.ceil(count / pageReq.page_size));
  return {
    count,
    next: pageReq.page < lastPage ? link(pageReq.page + 1) : null,
    previous: pageReq.page > 1 ? link(Math.min(pageReq.page - 1, lastPage)) : null,
    results,
  };
}

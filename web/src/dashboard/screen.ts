/** What every screen module exports, and what it gets to render with. Routes are `#/<path>[/<id>][?query]`. */
import type { Me } from './model.js';

export interface ScreenContext {
  /** The element the screen renders into (empty). */
  root: HTMLElement;
  /** The segment after the path (`#/channels/<id>`). */
  id?: string;
  query: URLSearchParams;
  me: Me;
  isAdmin: boolean;
  /** Navigates to a hash route (`#/stock?product_id=…`). */
  go: (hash: string) => void;
}

export interface Screen {
  path: string;
  title: string;
  /** The navigation group it is listed under. */
  group: 'Overview' | 'Catalog' | 'Stock' | 'Operations' | 'Monitoring' | 'Administration';
  adminOnly?: boolean;
  render(ctx: ScreenContext): Promise<void> | void;
}

export interface Route {
  path: string;
  id?: string;
  query: URLSearchParams;
}

/** `#/channels/abc?x=1` → `{path: 'channels', id: 'abc', query}`. */
export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [pathPart, queryPart = ''] = raw.split('?', 2);
  const [path = '', id] = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  return { path, id, query: new URLSearchParams(queryPart) };
}

/**
 * `allowed_domains` of an API key. An entry is an origin (`https://shop.example.com`, `http://localhost:3000`),
 * a host name matching that host on any scheme or port (`shop.example.com`), or a wildcard for its
 * subdomains (`*.example.com`).
 */
import Joi from 'joi';

const HOST = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export function isValidDomainEntry(entry: string): boolean {
  if (entry.includes('://')) {
    try {
      const url = new URL(entry);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === entry.replace(/\/$/, '');
    } catch {
      return false;
    }
  }
  return HOST.test(entry);
}

export const allowedDomainsSchema = Joi.array()
  .items(
    Joi.string()
      .max(255)
      .custom((value: string, helpers) => (isValidDomainEntry(value) ? value.replace(/\/$/, '').toLowerCase() : helpers.error('any.invalid')))
      .messages({ 'any.invalid': 'must be an origin (https://shop.example.com) or a host name (shop.example.com, *.example.com)' }),
  )
  .max(50)
  .unique();

export function originAllowed(origin: string, allowed: string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null"
  }
  const host = url.hostname.toLowerCase();
  return allowed.some((entry) => {
    if (entry.includes('://')) return entry === url.origin.toLowerCase();
    if (entry.startsWith('*.')) return host.endsWith(entry.slice(1));
    return host === entry;
  });
}

/** The header in which the embedded widget names the page that embeds it (web/src/widget/api.ts). */
export const EMBEDDING_ORIGIN_HEADER = 'x-embedding-origin';

/**
 * The origin a key's `allowed_domains` judge a request by: the browser's `Origin`, unless it is this service's
 * own (or absent, as on a same-origin GET). Then the caller is the widget page, and when it is embedded it
 * speaks for the page around it, whose origin it names in `X-Embedding-Origin`: the origin the browser gave
 * the key message it received (docs/api/widget-embedding.md). Without it, an iframe written by hand on any
 * site could use a key whose `allowed_domains` leave that site out. A caller other than a browser sends what
 * it likes, as it can leave out `Origin`: the check guards keys in other sites' pages, not on servers.
 */
export function originToCheck(origin: string | undefined, embeddingOrigin: string | undefined, ownOrigin: string): string | undefined {
  if (origin !== undefined && origin !== ownOrigin) return origin;
  return embeddingOrigin ?? origin;
}

/**
 * Whether a key accepts a request from `origin`: any origin when it has no `allowed_domains`, the service's own
 * origin always (the widget page calls the API from it, scanned or embedded), else only the listed ones.
 */
export function keyAllowsOrigin(origin: string, allowed: string[], ownOrigin: string): boolean {
  return origin === ownOrigin || allowed.length === 0 || originAllowed(origin, allowed);
}

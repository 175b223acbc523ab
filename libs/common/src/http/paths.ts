/**
 * How a path is spelled and matched, decided once (docs/api/paths-and-hostile-input.md "Paths") for the gateway, which routes and applies
 * every policy with it, and for each service, which gates its own routes with it, so that no spelling can
 * reach a route while missing one of its policies, or reach a service by another route than the gateway chose:
 *
 * - Case-sensitive. `/api/token/` is not `/API/Token/`; a path parameter (a QR code) keeps its case.
 * - Percent-encoded unreserved characters are decoded first (`%41` is `A`, RFC 3986 §6.2.2.2); other escapes
 *   stay as they are and can only ever be part of a path parameter's value.
 * - Refused outright: an empty segment (`//`), a dot segment (`.`, `..`, also spelled `%2E`), a backslash or an
 *   encoded one (`%5C`), an encoded slash (`%2F`), `;` (matrix parameters such as `;jsessionid=`), NUL and
 *   control characters, `#`, and malformed escapes.
 * - A path is one of a table's templates (`/api/v1/users/{id}/`) or a prefix mount (`/widget/assets/`).
 *   Where several templates match, a literal segment beats a parameter, as in Express. A path that would
 *   match a template if case were ignored, and that template is more specific than the one it matches exactly,
 *   is refused: `/api/v1/widget/LOCATIONS/` is neither `locations/` nor a product id, whatever a router behind
 *   it does with case.
 * - The final slash: a path that differs from its template only by the final slash is that template's path;
 *   callers rewrite the request to the template's spelling before anything else sees it.
 */
import type { RequestHandler } from 'express';
import { AppError } from '../errors';
import { setRouteTemplate } from '../metrics/route-label';

/** One row of a path table: an OpenAPI-style template, or a prefix under which any clean path is accepted. */
export interface PathEntry<T> {
  template: string;
  value: T;
  /** A mount (static files): every path starting with `template` (which ends with `/`). */
  prefix?: boolean;
}

export interface PathMatch<T> {
  /** The path as the table spells it (the final slash as in the template). */
  path: string;
  /** Whether the client left out (or added) the final slash. */
  slashAdjusted: boolean;
  /** Every entry that takes `path`, the most specific first. */
  matches: Array<PathEntry<T>>;
}

export type PathVerdict<T> = { ok: true; match: PathMatch<T> } | { ok: false; reason: string };

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The pathname with unreserved escapes decoded and the rest of the spelling rules checked; a reason when the
 * spelling is refused.
 */
export function cleanPathname(raw: string): { path: string } | { reason: string } {
  if (!raw.startsWith('/')) return { reason: 'a path starts with /' };
  let path = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch === '%') {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return { reason: 'malformed percent-encoding' };
      const decoded = String.fromCharCode(parseInt(hex, 16));
      if (decoded === '/' || decoded === '\\') return { reason: 'an encoded slash or backslash' };
      if (decoded < ' ' || decoded === '\x7f') return { reason: 'an encoded control character' };
      path += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
      i += 2;
      continue;
    }
    if (ch === '\\') return { reason: 'a backslash' };
    if (ch === ';') return { reason: 'a ; parameter' };
    if (ch === '#') return { reason: 'a fragment' };
    if (ch < ' ' || ch === '\x7f') return { reason: 'a control character' };
    path += ch;
  }
  try {
    decodeURIComponent(path);
  } catch {
    return { reason: 'malformed percent-encoding (not UTF-8)' };
  }
  const segments = path.slice(1).split('/');
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment === '.' || segment === '..') return { reason: 'a dot segment' };
    if (segment === '' && i < segments.length - 1) return { reason: 'an empty segment (//)' };
  }
  return { path };
}

interface CompiledTemplate<T> {
  entry: PathEntry<T>;
  /** Literal segments as strings, parameters as null. */
  segments: Array<string | null>;
  slash: boolean;
}

/** A path template's parameter, `{id}`: one whole segment, its name a word. */
const TEMPLATE_PARAMETER = /\{(\w+)\}/g;

/** Whether a template's segment is a parameter (`{id}`) rather than a literal. */
export const isTemplateParameter = (segment: string): boolean => /^\{\w+\}$/.test(segment);

/** The parameter names of a template, in order: `/api/v1/users/{id}/` → `['id']`. */
export const templateParameters = (template: string): string[] => [...template.matchAll(TEMPLATE_PARAMETER)].map((m) => m[1]);

/** A template with each parameter replaced: `withTemplateParameters('/a/{id}/', (name) => `:${name}`)` → `/a/:id/`. */
export const withTemplateParameters = (template: string, value: (name: string) => string): string =>
  template.replace(TEMPLATE_PARAMETER, (_, name: string) => value(name));

function compile<T>(entry: PathEntry<T>): CompiledTemplate<T> {
  const slash = entry.template.endsWith('/');
  const body = entry.template.slice(1, slash ? -1 : undefined);
  return { entry, segments: body === '' ? [] : body.split('/').map((s) => (isTemplateParameter(s) ? null : s)), slash };
}

/**
 * Shorter templates first, then, among templates of one length, -1 when `a` is more specific: at the first
 * position where one has a literal and the other a parameter, the literal wins.
 */
function bySpecificity<T>(a: CompiledTemplate<T>, b: CompiledTemplate<T>): number {
  if (a.segments.length !== b.segments.length) return a.segments.length - b.segments.length;
  for (let i = 0; i < a.segments.length; i++) {
    const aLiteral = a.segments[i] !== null;
    const bLiteral = b.segments[i] !== null;
    if (aLiteral !== bLiteral) return aLiteral ? -1 : 1;
  }
  return 0;
}

function matches<T>(t: CompiledTemplate<T>, segments: string[], ignoreCase: boolean): boolean {
  if (t.segments.length !== segments.length) return false;
  return t.segments.every((literal, i) => {
    if (literal === null) return segments[i] !== '';
    return ignoreCase ? literal.toLowerCase() === segments[i].toLowerCase() : literal === segments[i];
  });
}

/** A table of templates and mounts, matched by the rules above. */
export class PathTable<T> {
  private readonly templates: Array<CompiledTemplate<T>>;
  private readonly mounts: Array<PathEntry<T>>;

  constructor(entries: Array<PathEntry<T>>) {
    for (const e of entries) {
      if ('reason' in cleanPathname(withTemplateParameters(e.template, () => 'x'))) {
        throw new Error(`not a clean path template: ${e.template}`);
      }
      if (e.prefix && !e.template.endsWith('/')) throw new Error(`a mount ends with /: ${e.template}`);
    }
    this.templates = entries
      .filter((e) => !e.prefix)
      .map(compile)
      .sort(bySpecificity);
    this.mounts = entries.filter((e) => e.prefix);
  }

  /** The entries a raw pathname (as the client sent it, without the query) reaches, or why it reaches none. */
  resolve(rawPathname: string): PathVerdict<T> {
    const cleaned = cleanPathname(rawPathname);
    if ('reason' in cleaned) return { ok: false, reason: cleaned.reason };
    const path = cleaned.path;
    const trailingSlash = path.endsWith('/');
    const body = path.slice(1, trailingSlash ? -1 : undefined);
    const segments = body === '' ? [] : body.split('/');

    const exact = this.templates.filter((t) => matches(t, segments, false));
    const best = exact[0];
    // A case variant of a template more specific than the best exact match (or of any, when none matches).
    const variant = this.templates.find((t) => matches(t, segments, true) && !matches(t, segments, false));
    if (variant && (!best || bySpecificity(variant, best) < 0)) return { ok: false, reason: 'a case variant of a documented path' };
    if (best) {
      const canonical = segments.length ? `/${segments.join('/')}${best.slash ? '/' : ''}` : '/';
      return {
        ok: true,
        match: {
          path: canonical,
          slashAdjusted: best.slash !== trailingSlash,
          matches: exact.filter((t) => t.slash === best.slash).map((t) => t.entry),
        },
      };
    }
    const mount = this.mounts.find((m) => path.startsWith(m.template));
    if (mount) return { ok: true, match: { path, slashAdjusted: false, matches: [mount] } };
    return { ok: false, reason: NO_SUCH_PATH };
  }
}

/** The pathname and the query (with its `?`, or '') of a request target; an absolute-form target loses its origin. */
export function splitTarget(url: string): { pathname: string; query: string } {
  const withoutOrigin = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '');
  const q = withoutOrigin.indexOf('?');
  return q < 0 ? { pathname: withoutOrigin, query: '' } : { pathname: withoutOrigin.slice(0, q), query: withoutOrigin.slice(q) };
}

/** The reason of a path that is spelled well but is in no table. */
export const NO_SUCH_PATH = 'no such path';

/** The 404 of a path that reaches nothing; a refused spelling says why in `details.path`. */
export function pathNotFound(reason: string = NO_SUCH_PATH): AppError {
  const details = reason === NO_SUCH_PATH ? {} : { path: `${reason}: paths are matched exactly as documented` };
  return new AppError(404, 'not_found', 'No such endpoint.', details);
}

/**
 * Options for an Express router that routes by the same rules: case-sensitive, and the final slash exactly as
 * the route says (requests reach routers already spelled as the table spells them).
 */
export const ROUTER_OPTIONS = { caseSensitive: true, strict: true } as const;

/**
 * A service's gate (the shared app factory puts it behind the internal-auth wall): the service answers only
 * the templates it documents, spelled by the rules above, and its routers see the table's spelling. The
 * gateway only ever forwards that spelling; the gate makes sure the service agrees with the gateway even
 * for a request that did not come through it, whatever its routers would do with case or a final slash.
 */
export function pathGate(templates: string[]): RequestHandler {
  const table = new PathTable(templates.map((template) => ({ template, value: template })));
  return (req, _res, next) => {
    const { pathname, query } = splitTarget(req.url);
    const verdict = table.resolve(pathname);
    if (!verdict.ok) return next(pathNotFound(verdict.reason));
    req.url = `${verdict.match.path}${query}`;
    setRouteTemplate(req, verdict.match.matches[0].template);
    next();
  };
}

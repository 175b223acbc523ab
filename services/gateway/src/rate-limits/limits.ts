import type { ApiOperation } from '@pi/common';

/**
 * The one table of the API's rate limits (docs/api/rate-limits-cors-headers.md), each row with what it is counted per. Every number can be overridden
 * with RATE_LIMIT_OVERRIDES (`scope=points` or `scope=points/seconds`, comma-separated), so tests and
 * operators can shrink a limit without touching code; the defaults below are the documented values.
 */
export const RATE_LIMIT_SCOPES = [
  'login',
  'widget_burst',
  'widget_free',
  'widget_standard',
  'widget_premium',
  'qr_redirect',
  'qr_api',
  'product_import',
  'company_export',
  'user_daily',
  'anonymous_daily',
] as const;
export type RateLimitScope = (typeof RATE_LIMIT_SCOPES)[number];

/**
 * Hourly company quotas whose point comes back when the answer is a 5xx: the system failed to carry the request
 * out, and an admin whose export met a database restart should not wait an hour to try again. The protective
 * limits (per minute, per address, per key) keep every point, or a client retrying through an outage in a
 * tight loop would never be slowed down (docs/api/rate-limits-cors-headers.md).
 */
export const GIVEN_BACK_ON_FAILURE: ReadonlySet<RateLimitScope> = new Set<RateLimitScope>(['product_import', 'company_export']);

/** The scopes an operation may declare (`rateLimits`); the others are the caller's, charged by credential. */
export const OPERATION_SCOPES: readonly RateLimitScope[] = ['login', 'qr_redirect', 'qr_api', 'product_import', 'company_export'];

/**
 * What a counter is keyed by: the client address (req.ip, X-Forwarded-For only from TRUSTED_PROXIES),
 * the budget key (an API key, or for a key minted by a QR scan the widget key it came from), the caller
 * (budget key or user; client address for anonymous callers), the company, or the user.
 */
export type RateLimitKey = 'client_address' | 'budget_key' | 'caller' | 'company' | 'user';

export interface RateLimit {
  points: number;
  durationSeconds: number;
  per: RateLimitKey;
}

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;

export const SPEC_LIMITS: Readonly<Record<RateLimitScope, RateLimit>> = {
  login: { points: 10, durationSeconds: MINUTE, per: 'client_address' },
  widget_burst: { points: 100, durationSeconds: MINUTE, per: 'budget_key' },
  widget_free: { points: 1_000, durationSeconds: HOUR, per: 'budget_key' },
  widget_standard: { points: 10_000, durationSeconds: HOUR, per: 'budget_key' },
  widget_premium: { points: 100_000, durationSeconds: HOUR, per: 'budget_key' },
  qr_redirect: { points: 100, durationSeconds: MINUTE, per: 'client_address' },
  qr_api: { points: 500, durationSeconds: MINUTE, per: 'caller' },
  product_import: { points: 30, durationSeconds: HOUR, per: 'company' },
  company_export: { points: 1, durationSeconds: HOUR, per: 'company' },
  user_daily: { points: 100_000, durationSeconds: DAY, per: 'user' },
  anonymous_daily: { points: 1_000, durationSeconds: DAY, per: 'client_address' },
};

export type RateLimitOverrides = Partial<Record<RateLimitScope, { points: number; durationSeconds?: number }>>;

/** Parses `login=3,widget_burst=5/10`; throws naming the bad entry. */
export function parseRateLimitOverrides(text: string): RateLimitOverrides {
  const overrides: RateLimitOverrides = {};
  for (const entry of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^([a-z_]+)=(\d+)(?:\/(\d+))?$/.exec(entry);
    if (!match) throw new Error(`'${entry}' is not scope=points or scope=points/seconds`);
    const scope = match[1] as RateLimitScope;
    if (!RATE_LIMIT_SCOPES.includes(scope)) throw new Error(`'${match[1]}' is not a rate limit scope (${RATE_LIMIT_SCOPES.join(', ')})`);
    const points = Number(match[2]);
    const durationSeconds = match[3] === undefined ? undefined : Number(match[3]);
    if (points < 1 || (durationSeconds !== undefined && durationSeconds < 1)) throw new Error(`'${entry}' needs points and seconds of at least 1`);
    overrides[scope] = { points, durationSeconds };
  }
  return overrides;
}

export function effectiveLimits(overrides: RateLimitOverrides): Record<RateLimitScope, RateLimit> {
  const limits = {} as Record<RateLimitScope, RateLimit>;
  for (const scope of RATE_LIMIT_SCOPES) {
    const o = overrides[scope];
    limits[scope] = { ...SPEC_LIMITS[scope], ...(o ? { points: o.points, durationSeconds: o.durationSeconds ?? SPEC_LIMITS[scope].durationSeconds } : {}) };
  }
  return limits;
}

/** The gateway's own operations without credentials that count as anonymous requests (probes, documents and pages do not). */
export const ANONYMOUS_GATEWAY_OPERATIONS: ReadonlySet<string> = new Set(['obtainToken', 'refreshToken', 'registerCompany', 'signInToScan']);

/**
 * The scopes an operation counts against besides the per-credential ones (widget, user, anonymous): what its
 * declaration says (`rateLimits`), found through the public path table (http/public-paths.ts) in whatever
 * spelling the request was sent, so no spelling reaches an operation without its scopes.
 */
export function operationScopes(op: Pick<ApiOperation, 'rateLimits'> | undefined): RateLimitScope[] {
  return (op?.rateLimits ?? []) as RateLimitScope[];
}

/**
 * Stops the gateway at start when an operation names a scope it does not know, or when an operation this module
 * names is not documented (renamed or removed).
 */
export function assertRateLimitsKnown(operations: Pick<ApiOperation, 'operationId' | 'rateLimits'>[]): void {
  const unknown = operations.flatMap((op) =>
    (op.rateLimits ?? []).filter((s) => !(OPERATION_SCOPES as readonly string[]).includes(s)).map((s) => `${op.operationId}: ${s}`),
  );
  if (unknown.length) throw new Error(`operations name rate limit scopes an operation cannot have: ${unknown.join(', ')}`);
  const ids = new Set(operations.map((op) => op.operationId));
  const missing = [...ANONYMOUS_GATEWAY_OPERATIONS].filter((id) => !ids.has(id));
  if (missing.length) throw new Error(`rate limits name operations that are not documented: ${missing.join(', ')}`);
}

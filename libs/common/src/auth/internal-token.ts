/**
 * The gateway forwards every request to a service with a short-lived (60 s) JWT in `X-Internal-Auth`,
 * signed with INTERNAL_JWT_SECRET: the caller's identity, or an anonymous token for the few public routes
 * (a QR scan, the token exchange). Services accept nothing else: a request reaching a service directly,
 * with an expired token or one signed by another secret, gets 401; an anonymous one reaches only the
 * routes a service declares public.
 *
 * Keys are KeyObjects made once (auth/secret-keys.ts). The gateway signs through an `InternalTokenSigner`,
 * which reuses one token per identity for half its lifetime: the request id travels in `X-Request-Id`, not
 * in the token, so the same identity's token is the same for every request.
 */
import type { KeyObject } from 'node:crypto';
import type { RequestHandler } from 'express';
import jwt from 'jsonwebtoken';
import { Authenticator } from 'passport';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import { AuthenticationError } from '../errors';
import { Identity, PERMISSIONS, Permission, Role, SCAN_POLICIES, ScanScope, Tier } from '../identity';
import { secretKey } from './secret-keys';

export const INTERNAL_AUTH_HEADER = 'x-internal-auth';
const ISSUER = 'pi-gateway';
const AUDIENCE = 'pi-services';
const LIFETIME_SECONDS = 60;

interface InternalClaims {
  sub: string;
  cid: string;
  pk: Identity['principal']['kind'] | 'anonymous';
  perms: Permission[];
  role?: Role;
  tier?: Tier;
  /** A QR scan's reach (keys minted by a scan only): code, policy, target type and id, product, signed-in user. */
  scan?: ScanClaim;
  /** The request id, in tokens signed for one request (`signInternalToken`); the gateway's reused ones have none. */
  rid?: string;
}

interface ScanClaim {
  code: string;
  pol: ScanScope['policy'];
  tt: ScanScope['targetType'];
  tid: string | null;
  pid: string | null;
  uid: string | null;
}

const scanClaim = (s: ScanScope): ScanClaim => ({ code: s.code, pol: s.policy, tt: s.targetType, tid: s.targetId, pid: s.productId, uid: s.userId });

const TARGET_TYPES = ['PRODUCT', 'ITEM', 'WORK_ORDER'];
const idOrNull = (v: unknown) => v === null || typeof v === 'string';

/** The scope in a token; `false` when the claim is malformed (then the token is refused: never read as unscoped). */
function scanScopeFrom(c: unknown): ScanScope | undefined | false {
  if (c === undefined) return undefined;
  if (!c || typeof c !== 'object') return false;
  const s = c as ScanClaim;
  if (typeof s.code !== 'string' || !SCAN_POLICIES.includes(s.pol) || !(s.tt === null || TARGET_TYPES.includes(s.tt))) return false;
  if (!idOrNull(s.tid) || !idOrNull(s.pid) || !idOrNull(s.uid)) return false;
  return { code: s.code, policy: s.pol, targetType: s.tt, targetId: s.tid, productId: s.pid, userId: s.uid };
}

function claimsOf(identity: Identity | undefined): InternalClaims {
  if (!identity) return { sub: 'anonymous', cid: '', pk: 'anonymous', perms: [] };
  return {
    sub: identity.principal.id,
    cid: identity.companyId,
    pk: identity.principal.kind,
    perms: identity.permissions,
    role: identity.role,
    tier: identity.tier,
    ...(identity.scan ? { scan: scanClaim(identity.scan) } : {}),
  };
}

function sign(claims: InternalClaims, key: KeyObject): string {
  return jwt.sign(claims, key, { algorithm: 'HS256', expiresIn: LIFETIME_SECONDS, issuer: ISSUER, audience: AUDIENCE });
}

/** One token for one request. `identity` undefined signs an anonymous token (public routes). */
export function signInternalToken(identity: Identity | undefined, requestId: string, secret: string | KeyObject): string {
  return sign({ ...claimsOf(identity), rid: requestId }, secretKey(secret));
}

/** A token is reused while at least this much of its 60 s remains: ample for a hop and for clock skew. */
const REUSE_MS = 30_000;
/** Identities seen within REUSE_MS (keys and users in use); past this the expired ones are dropped. */
const MAX_REMEMBERED = 10_000;

/**
 * Entries that lapse at a time of their own, at most MAX_REMEMBERED of them: a lapsed entry is never answered,
 * and when the map is full the lapsed ones go first, then all (both token caches below).
 */
class LapsingMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly lapsesAt: (entry: V) => number) {}

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || this.lapsesAt(entry) > now) return entry;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, entry: V, now: number): void {
    if (!this.entries.has(key) && this.entries.size >= MAX_REMEMBERED) {
      for (const [k, e] of this.entries) if (this.lapsesAt(e) <= now) this.entries.delete(k);
      if (this.entries.size >= MAX_REMEMBERED) this.entries.clear();
    }
    this.entries.set(key, entry);
  }
}

/**
 * The gateway's signer: the same identity gets the same token for REUSE_MS, so signing (and the JSON and
 * base64 work around it) is paid about once per caller every 30 s instead of on every request.
 */
export class InternalTokenSigner {
  private readonly key: KeyObject;
  private readonly tokens = new LapsingMap<{ token: string; renewAt: number }>((entry) => entry.renewAt);

  constructor(secret: string | KeyObject) {
    this.key = secretKey(secret);
  }

  tokenFor(identity: Identity | undefined): string {
    const cacheKey = identity ? identityKey(identity) : 'anonymous';
    const now = Date.now();
    const cached = this.tokens.get(cacheKey, now);
    // (A clock set back leaves renewAt too far ahead: sign anew rather than trust it.)
    if (cached && cached.renewAt - now <= REUSE_MS) return cached.token;
    const token = sign(claimsOf(identity), this.key);
    this.tokens.set(cacheKey, { token, renewAt: now + REUSE_MS }, now);
    return token;
  }
}

/** Everything a token says about its identity, as one string (ids and enum values never contain `|`). */
function identityKey(identity: Identity): string {
  const { principal, companyId, permissions, role, tier, scan } = identity;
  return `${principal.kind}|${principal.id}|${companyId}|${permissions.join(',')}|${role ?? ''}|${tier ?? ''}|${scan ? JSON.stringify(scanClaim(scan)) : ''}`;
}

const ANONYMOUS = Symbol('anonymous');

function identityFrom(claims: InternalClaims): Identity | typeof ANONYMOUS | undefined {
  if (claims.pk === 'anonymous') return ANONYMOUS;
  if (typeof claims.cid !== 'string' || typeof claims.sub !== 'string') return undefined;
  if (claims.pk !== 'user' && claims.pk !== 'api_key') return undefined;
  if (!Array.isArray(claims.perms) || !claims.perms.every((p) => PERMISSIONS.includes(p))) return undefined;
  const scan = scanScopeFrom(claims.scan);
  if (scan === false) return undefined;
  return {
    companyId: claims.cid,
    principal: { kind: claims.pk, id: claims.sub },
    permissions: claims.perms,
    role: claims.role,
    tier: claims.tier,
    ...(scan ? { scan } : {}),
  };
}

/** A token that verified, until it expires: what it said. */
interface Verified {
  identity: Identity | typeof ANONYMOUS;
  expiresAt: number;
}

/**
 * Middleware for services: verifies the internal token with passport-jwt and sets `req.identity` (left unset
 * for an anonymous token). Put `requireIdentity` after the public routes.
 *
 * Tokens that verified are remembered by their exact text until their `exp`: the gateway reuses one token per
 * identity for 30 s, so a service sees the same few strings again and again, and the same bytes verify the
 * same way; a hit skips the HMAC, the JSON and passport (docs/operations/benchmarks.md). Identities are never
 * mutated.
 */
export function requireInternalAuth(secret: string): RequestHandler {
  const passport = new Authenticator();
  passport.use(
    'internal',
    new JwtStrategy(
      {
        jwtFromRequest: ExtractJwt.fromHeader(INTERNAL_AUTH_HEADER),
        // passport-jwt hands this to jsonwebtoken as is; its types predate KeyObject support.
        secretOrKey: secretKey(secret) as unknown as string,
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
      },
      (claims: InternalClaims & { exp: number }, done: (err: unknown, user?: Verified | false) => void) => {
        const identity = identityFrom(claims);
        done(null, identity ? { identity, expiresAt: claims.exp * 1000 } : false);
      },
    ),
  );
  const verified = new LapsingMap<Verified>((entry) => entry.expiresAt);
  const accept = (req: Parameters<RequestHandler>[0], { identity }: Verified) => {
    if (identity !== ANONYMOUS) req.identity = identity;
  };
  return (req, res, next) => {
    const token = req.headers[INTERNAL_AUTH_HEADER];
    const known = typeof token === 'string' ? verified.get(token, Date.now()) : undefined;
    if (known) {
      accept(req, known);
      return next();
    }
    // @types/passport types the middleware it returns as any.
    (
      passport.authenticate('internal', { session: false }, (err: unknown, result: Verified | false) => {
        if (err) return next(err);
        if (!result) return next(new AuthenticationError('Missing or invalid internal credentials.'));
        verified.set(token as string, result, Date.now());
        accept(req, result);
        next();
      }) as RequestHandler
    )(req, res, next);
  };
}

/** After a service's public routes: everything else needs an authenticated caller. */
export const requireIdentity: RequestHandler = (req, _res, next) => {
  if (!req.identity) return next(new AuthenticationError('Missing or invalid internal credentials.'));
  next();
};

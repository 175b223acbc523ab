/**
 * The gateway forwards every request to a service with a short-lived (60 s) JWT in `X-Internal-Auth`,
 * signed with INTERNAL_JWT_SECRET: the caller's identity, or an anonymous token for the few public routes
 * (a QR scan, the token exchange). Services accept nothing else: a request reaching a service directly,
 * with an expired token or one signed by another secret, gets 401; an anonymous one reaches only the
 * routes a service declares public.
 */
import type { RequestHandler } from 'express';
import jwt from 'jsonwebtoken';
import { Authenticator } from 'passport';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import { AuthenticationError } from '../errors';
import { Identity, PERMISSIONS, Permission, Role, Tier } from '../identity';

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
  rid: string;
}

/** `identity` undefined signs an anonymous token (public routes). */
export function signInternalToken(identity: Identity | undefined, requestId: string, secret: string): string {
  if (!identity) {
    const anonymous: InternalClaims = { sub: 'anonymous', cid: '', pk: 'anonymous', perms: [], rid: requestId };
    return jwt.sign(anonymous, secret, { algorithm: 'HS256', expiresIn: LIFETIME_SECONDS, issuer: ISSUER, audience: AUDIENCE });
  }
  const claims: InternalClaims = {
    sub: identity.principal.id,
    cid: identity.companyId,
    pk: identity.principal.kind,
    perms: identity.permissions,
    role: identity.role,
    tier: identity.tier,
    rid: requestId,
  };
  return jwt.sign(claims, secret, { algorithm: 'HS256', expiresIn: LIFETIME_SECONDS, issuer: ISSUER, audience: AUDIENCE });
}

const ANONYMOUS = Symbol('anonymous');

function identityFrom(claims: InternalClaims): Identity | typeof ANONYMOUS | undefined {
  if (claims.pk === 'anonymous') return ANONYMOUS;
  if (typeof claims.cid !== 'string' || typeof claims.sub !== 'string') return undefined;
  if (claims.pk !== 'user' && claims.pk !== 'api_key') return undefined;
  if (!Array.isArray(claims.perms) || !claims.perms.every((p) => PERMISSIONS.includes(p))) return undefined;
  return {
    companyId: claims.cid,
    principal: { kind: claims.pk, id: claims.sub },
    permissions: claims.perms,
    role: claims.role,
    tier: claims.tier,
  };
}

/**
 * Middleware for services: verifies the internal token with passport-jwt and sets `req.identity` (left
 * unset for an anonymous token). Put `requireIdentity` after the public routes.
 */
export function requireInternalAuth(secret: string): RequestHandler {
  const passport = new Authenticator();
  passport.use(
    'internal',
    new JwtStrategy(
      {
        jwtFromRequest: ExtractJwt.fromHeader(INTERNAL_AUTH_HEADER),
        secretOrKey: secret,
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
      },
      (claims: InternalClaims, done: (err: unknown, user?: Identity | typeof ANONYMOUS | false) => void) => done(null, identityFrom(claims) ?? false),
    ),
  );
  const authenticate = (req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1], next: Parameters<RequestHandler>[2]) =>
    passport.authenticate('internal', { session: false }, (err: unknown, identity: Identity | typeof ANONYMOUS | false) => {
      if (err) return next(err);
      if (!identity) return next(new AuthenticationError('Missing or invalid internal credentials.'));
      if (identity !== ANONYMOUS) req.identity = identity;
      next();
    })(req, res, next);
  return authenticate;
}

/** After a service's public routes: everything else needs an authenticated caller. */
export const requireIdentity: RequestHandler = (req, _res, next) => {
  if (!req.identity) return next(new AuthenticationError('Missing or invalid internal credentials.'));
  next();
};

/**
 * The gateway forwards each authenticated caller to a service inside a short-lived (60 s) JWT in
 * `X-Internal-Auth`, signed with INTERNAL_JWT_SECRET. Services accept nothing else: a request reaching a
 * service directly, with an expired token or one signed by another secret, gets 401.
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
  pk: Identity['principal']['kind'];
  perms: Permission[];
  role?: Role;
  tier?: Tier;
  rid: string;
}

export function signInternalToken(identity: Identity, requestId: string, secret: string): string {
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

function identityFrom(claims: InternalClaims): Identity | undefined {
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

/** Middleware for services: verifies the internal token with passport-jwt and sets `req.identity`. */
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
      (claims: InternalClaims, done: (err: unknown, user?: Identity | false) => void) => done(null, identityFrom(claims) ?? false),
    ),
  );
  const authenticate = (req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1], next: Parameters<RequestHandler>[2]) =>
    passport.authenticate('internal', { session: false }, (err: unknown, identity: Identity | false) => {
      if (err) return next(err);
      if (!identity) return next(new AuthenticationError('Missing or invalid internal credentials.'));
      req.identity = identity;
      next();
    })(req, res, next);
  return authenticate;
}

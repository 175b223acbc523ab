/**
 * Dashboard bearer tokens: an access token (900 s) and a refresh token (604800 s), HS256 with JWT_SECRET.
 * Both lifetimes are fixed (docs/api/authentication.md). `typ` keeps one kind from being used as the other.
 *
 * `ver` is the user's token version when the token was issued (users.token_version). A password change, a
 * role change and a deactivation raise the version, which revokes every token issued before at once: the
 * gateway refuses a token whose `ver` is not the user's current one (docs/api/authentication.md "Revoking a user's tokens").
 * Tokens issued before versions existed carry none and count as version 0.
 */
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AuthenticationError, secretKey } from '@pi/common';

export const ACCESS_TOKEN_SECONDS = 900;
export const REFRESH_TOKEN_SECONDS = 604_800;
const ISSUER = 'pi-inventory';

type TokenKind = 'access' | 'refresh';

export interface UserTokenClaims {
  sub: string;
  cid: string;
  typ: TokenKind;
  /** The user's token version at issue. */
  ver: number;
}

/** Whom a token is issued to. */
export interface TokenSubject {
  id: string;
  companyId: string;
  tokenVersion: number;
}

function sign(kind: TokenKind, user: TokenSubject, secret: string): string {
  const lifetime = kind === 'access' ? ACCESS_TOKEN_SECONDS : REFRESH_TOKEN_SECONDS;
  return jwt.sign({ cid: user.companyId, typ: kind, ver: user.tokenVersion }, secretKey(secret), {
    algorithm: 'HS256',
    subject: user.id,
    expiresIn: lifetime,
    issuer: ISSUER,
    jwtid: randomUUID(),
  });
}

export function issueAccessToken(user: TokenSubject, secret: string): string {
  return sign('access', user, secret);
}

export function issueRefreshToken(user: TokenSubject, secret: string): string {
  return sign('refresh', user, secret);
}

/** Verifies signature (HS256 only: `alg: none` and others are refused), expiry and kind. */
export function verifyUserToken(token: string, kind: TokenKind, secret: string): UserTokenClaims {
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(token, secretKey(secret), { algorithms: ['HS256'], issuer: ISSUER }) as jwt.JwtPayload;
  } catch {
    throw new AuthenticationError('Token is invalid or expired.');
  }
  const ver: unknown = claims.ver === undefined ? 0 : claims.ver;
  if (claims.typ !== kind || typeof claims.sub !== 'string' || typeof claims.cid !== 'string' || typeof ver !== 'number' || !Number.isSafeInteger(ver)) {
    throw new AuthenticationError('Token is invalid or expired.');
  }
  return { sub: claims.sub, cid: claims.cid, typ: kind, ver };
}

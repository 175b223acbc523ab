/**
 * Dashboard bearer tokens: an access token (900 s) and a refresh token (604800 s), HS256 with JWT_SECRET.
 * Both lifetimes are fixed by SPEC.md. `typ` keeps one kind from being used as the other.
 */
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AuthenticationError } from '@pi/common';

export const ACCESS_TOKEN_SECONDS = 900;
export const REFRESH_TOKEN_SECONDS = 604_800;
const ISSUER = 'pi-inventory';

type TokenKind = 'access' | 'refresh';

export interface UserTokenClaims {
  sub: string;
  cid: string;
  typ: TokenKind;
}

function sign(kind: TokenKind, userId: string, companyId: string, secret: string): string {
  const lifetime = kind === 'access' ? ACCESS_TOKEN_SECONDS : REFRESH_TOKEN_SECONDS;
  return jwt.sign({ cid: companyId, typ: kind }, secret, { algorithm: 'HS256', subject: userId, expiresIn: lifetime, issuer: ISSUER, jwtid: randomUUID() });
}

export function issueAccessToken(userId: string, companyId: string, secret: string): string {
  return sign('access', userId, companyId, secret);
}

export function issueRefreshToken(userId: string, companyId: string, secret: string): string {
  return sign('refresh', userId, companyId, secret);
}

/** Verifies signature (HS256 only: `alg: none` and others are refused), expiry and kind. */
export function verifyUserToken(token: string, kind: TokenKind, secret: string): UserTokenClaims {
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(token, secret, { algorithms: ['HS256'], issuer: ISSUER }) as jwt.JwtPayload;
  } catch {
    throw new AuthenticationError('Token is invalid or expired.');
  }
  if (claims.typ !== kind || typeof claims.sub !== 'string' || typeof claims.cid !== 'string') {
    throw new AuthenticationError('Token is invalid or expired.');
  }
  return { sub: claims.sub, cid: claims.cid, typ: kind };
}

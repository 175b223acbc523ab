/**
 * A scan: `/go/<code>/` answers a redirect to the widget with a signed, one-time, ten-minute token; the
 * widget exchanges it for a scan key. The long-lived company key never appears in a URL.
 *
 * The exchange claims the token's `jti` (primary key) in the same transaction that mints the key, so of
 * two racing exchanges exactly one wins and the other answers 410 token_used. The minted key reaches only
 * what the code points at (docs/api/scanning.md): it records the scan policy (the code's, else the
 * company's), the target and its product; `read` scans get only the `read` permission. It keeps the tier and
 * allowed domains of the company's widget key, lives as long as the company's scan key lifetime (eight hours
 * unless changed), never past the widget key, and is revoked with it (rotation or revocation, in the gateway).
 */
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { QueryTypes } from 'sequelize';
import type { QrContext } from '../context';
import { ApiKey, AppError, Company, ConflictError, Permission, QrCode, ScanPolicy, generateKeyValue, secretKey } from '@pi/common';
import { REDIRECT_TOKEN_SECONDS } from '../config';

const AUDIENCE = 'pi-widget';

interface RedirectClaims {
  typ: 'qr';
  code: string;
  cid: string;
  jti: string;
  exp: number;
}

export function signRedirectToken(code: string, companyId: string, secret: string): string {
  return jwt.sign({ typ: 'qr', code, cid: companyId }, secretKey(secret), {
    algorithm: 'HS256',
    expiresIn: REDIRECT_TOKEN_SECONDS,
    jwtid: randomUUID(),
    audience: AUDIENCE,
  });
}

export class TokenGoneError extends AppError {
  constructor(code: 'token_expired' | 'token_used', message: string) {
    super(410, code, message);
  }
}

export class InvalidTokenError extends AppError {
  constructor() {
    super(400, 'invalid_token', 'The token is malformed or was not issued by this service.', { token: 'is not a valid QR redirect token' });
  }
}

export function verifyRedirectToken(token: string, secret: string): RedirectClaims {
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(token, secretKey(secret), { algorithms: ['HS256'], audience: AUDIENCE }) as jwt.JwtPayload;
  } catch (err) {
    // jsonwebtoken checks the signature before the expiry: only a genuine token can be "expired".
    if (err instanceof jwt.TokenExpiredError) throw new TokenGoneError('token_expired', 'This QR link has expired: scan the code again.');
    throw new InvalidTokenError();
  }
  if (claims.typ !== 'qr' || typeof claims.code !== 'string' || typeof claims.cid !== 'string' || typeof claims.jti !== 'string') {
    throw new InvalidTokenError();
  }
  return claims as RedirectClaims;
}

/** A scan's permissions: `read` scans see only; the others may book (the services check what and when). */
export function scanPermissions(policy: ScanPolicy, widgetKeyPermissions: Permission[]): Permission[] {
  const wanted: Permission[] = policy === 'read' ? ['read'] : ['read', 'write'];
  const granted = wanted.filter((p) => widgetKeyPermissions.includes(p));
  return granted.length ? granted : ['read'];
}

export async function exchangeToken({ sequelize, config }: QrContext, token: string) {
  const claims = verifyRedirectToken(token, config.QR_TOKEN_SECRET);
  return sequelize.transaction(async (transaction) => {
    const claimed = await sequelize.query(
      `INSERT INTO redirect_token_uses (jti, company_id, code, expires_at) VALUES ($1, $2, $3, to_timestamp($4))
       ON CONFLICT (jti) DO NOTHING RETURNING jti`,
      { bind: [claims.jti, claims.cid, claims.code, claims.exp], transaction, type: QueryTypes.SELECT },
    );
    if (claimed.length === 0) throw new TokenGoneError('token_used', 'This QR link was already used: scan the code again.');
    const code = await QrCode.findOne({ where: { code: claims.code, companyId: claims.cid }, transaction });
    if (!code) throw new InvalidTokenError();
    // FOR SHARE: a rotation or revocation of the widget key (FOR UPDATE) waits for this exchange, so it then
    // revokes the key minted here; or this exchange waits for it, and sees the key revoked.
    const widgetKey = await ApiKey.findOne({ where: { companyId: claims.cid, isWidgetKey: true, revokedAt: null }, transaction, lock: transaction.LOCK.SHARE });
    const now = Date.now();
    if (!widgetKey || (widgetKey.expiresAt && widgetKey.expiresAt.getTime() <= now)) {
      throw new ConflictError('widget_key_unavailable', 'The company has no active widget key to scan with.');
    }
    const company = await Company.findByPk(claims.cid, { attributes: ['scanPolicy', 'scanKeySeconds'], transaction });
    if (!company) throw new InvalidTokenError();
    const policy = code.scanPolicy ?? company.scanPolicy;
    const value = generateKeyValue();
    // A scan key never outlives the key it inherits from.
    const expiresAt = new Date(Math.min(now + company.scanKeySeconds * 1000, widgetKey.expiresAt?.getTime() ?? Infinity));
    const minted = await ApiKey.create(
      {
        companyId: claims.cid,
        name: `Scan of ${code.code}`,
        prefix: value.prefix,
        keyHash: value.hash,
        permissions: scanPermissions(policy, widgetKey.permissions),
        allowedDomains: widgetKey.allowedDomains,
        tier: widgetKey.tier,
        isWidgetKey: false,
        expiresAt,
        usageCount: '0',
        parentKeyId: widgetKey.id,
        qrCode: code.code,
        scanPolicy: policy,
        scanTargetType: code.targetType,
        scanTargetId: code.targetId,
        scanProductId: code.productModelId,
        scanUserId: null,
      },
      { transaction },
    );
    await sequelize.query('UPDATE redirect_token_uses SET api_key_id = $2 WHERE jti = $1', { bind: [claims.jti, minted.id], transaction });
    // A used token only needs remembering until it expires (then it is refused as expired): forget a few old ones.
    await sequelize.query(
      `DELETE FROM redirect_token_uses WHERE jti IN (SELECT jti FROM redirect_token_uses WHERE expires_at < now() - interval '1 hour' LIMIT 100)`,
      { transaction },
    );
    return { apiKey: value.value, expiresAt, code, policy };
  });
}

/**
 * Webhook signatures (docs/api/monitoring-and-notifications.md, "The webhook body"): `X-PI-Signature: sha256=<hex>`, the HMAC-SHA256 of the raw
 * body bytes keyed with the channel secret. Receivers must verify against the bytes they received, before
 * parsing the JSON.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-PI-Signature';

const SIGNATURE_PATTERN = /^sha256=([0-9a-f]{64})$/i;

function hmac(body: string | Buffer, secret: string): Buffer {
  return createHmac('sha256', secret)
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest();
}

/** `sha256=<hex>` for the UTF-8 bytes of `body` (or the bytes themselves). */
export function signBody(body: string | Buffer, secret: string): string {
  return `sha256=${hmac(body, secret).toString('hex')}`;
}

/** True when `header` is a well-formed `sha256=<hex>` signature of `body` under `secret`; compared in constant time. */
export function verifySignature(body: string | Buffer, secret: string, header: string | undefined | null): boolean {
  const match = typeof header === 'string' ? SIGNATURE_PATTERN.exec(header.trim()) : null;
  if (!match) return false;
  return timingSafeEqual(Buffer.from(match[1], 'hex'), hmac(body, secret));
}

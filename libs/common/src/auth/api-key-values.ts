/**
 * API key values: `pik_` and 40 URL-safe random characters (240 bits). Only the SHA-256 of a value is
 * stored (a random key needs no slow hash); the first 12 characters are kept as a visible prefix.
 */
import { createHash, randomBytes } from 'node:crypto';

const VALUE_SHAPE = /^pik_[A-Za-z0-9_-]{40}$/;

export interface NewKeyValue {
  value: string;
  prefix: string;
  hash: string;
}

export function hashKeyValue(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function generateKeyValue(): NewKeyValue {
  const value = `pik_${randomBytes(30).toString('base64url')}`;
  return { value, prefix: value.slice(0, 12), hash: hashKeyValue(value) };
}

export function looksLikeKeyValue(value: unknown): value is string {
  return typeof value === 'string' && VALUE_SHAPE.test(value);
}

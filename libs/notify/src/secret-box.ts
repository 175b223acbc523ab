/**
 * Channel secrets at rest. Webhook secrets must be recoverable (they key every signature), so they are
 * encrypted, not hashed: AES-256-GCM under SECRET_ENCRYPTION_KEY with a fresh 12-byte IV per value, stored as
 * `v1:<iv b64>:<tag b64>:<ciphertext b64>`. The version prefix leaves room for key rotation later.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Thrown for a bad key or a stored value that does not decrypt; messages never include key or plaintext. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/** Strict, canonical base64: a value re-encodes to exactly the same text, so no character can be altered silently. */
function decodeBase64(text: string): Buffer | undefined {
  if (!BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

function assertKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) {
    throw new SecretBoxError(`encryption key must be exactly ${KEY_BYTES} bytes`);
  }
}

/**
 * Decodes the configured key (standard base64, padding included, e.g. from `openssl rand -base64 32`).
 * Throws when it is not base64 or does not decode to exactly 32 bytes.
 */
export function parseEncryptionKey(base64: string): Buffer {
  const key = decodeBase64(typeof base64 === 'string' ? base64.trim() : '');
  if (!key) throw new SecretBoxError('encryption key must be base64 (generate one with `openssl rand -base64 32`)');
  if (key.length !== KEY_BYTES) {
    throw new SecretBoxError(`encryption key must decode to exactly ${KEY_BYTES} bytes, not ${key.length}`);
  }
  return key;
}

export function encryptSecret(plain: string, key: Buffer): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString('base64'), tag.toString('base64'), ciphertext.toString('base64')].join(':');
}

/** Reverses `encryptSecret`. Throws `SecretBoxError` on a wrong key, a malformed value or any tampering. */
export function decryptSecret(stored: string, key: Buffer): string {
  assertKey(key);
  const parts = typeof stored === 'string' ? stored.split(':') : [];
  if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretBoxError('stored secret has an unknown format');
  const [iv, tag, ciphertext] = parts.slice(1).map(decodeBase64);
  // The tag length is checked here as well as by the cipher: GCM would otherwise accept a truncated tag.
  if (!iv || iv.length !== IV_BYTES || !tag || tag.length !== TAG_BYTES || !ciphertext) {
    throw new SecretBoxError('stored secret has an unknown format');
  }
  try {
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError('stored secret could not be decrypted (wrong key or altered value)');
  }
}

/** A new webhook signing secret: `whsec_` and 32 random bytes in base64url. */
export function generateChannelSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

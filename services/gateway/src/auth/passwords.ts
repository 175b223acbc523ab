/**
 * Password hashing with scrypt (memory-hard, built into Node). The cost parameters are stored with each
 * hash, so raising PASSWORD_HASH_COST later keeps old hashes verifiable.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const KEY_LENGTH = 32;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;

function derive(password: string, salt: Buffer, log2n: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2n;
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem: 128 * N * r * p + 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string, log2n: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, log2n, BLOCK_SIZE, PARALLELISM);
  return ['scrypt', log2n, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [algo, log2n, r, p, salt, key] = stored.split('$');
  if (algo !== 'scrypt' || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), Number(log2n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash of a random password, computed once, so that a login for an unknown user costs as much as one for
 * a known user (no user enumeration by timing).
 */
let decoy: Promise<string> | undefined;
export function decoyHash(log2n: number): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'), log2n);
  return decoy;
}

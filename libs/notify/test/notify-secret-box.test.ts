import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { SecretBoxError, decryptSecret, encryptSecret, generateChannelSecret, parseEncryptionKey } from '../src';

const KEY = randomBytes(32);

/** Flips one bit of the decoded bytes of part `index` (1 iv, 2 tag, 3 ciphertext) and re-encodes it. */
function tamper(stored: string, index: number): string {
  const parts = stored.split(':');
  const bytes = Buffer.from(parts[index], 'base64');
  bytes[0] ^= 0x01;
  parts[index] = bytes.toString('base64');
  return parts.join(':');
}

describe('secret box', () => {
  it('round-trips a secret', () => {
    for (const plain of ['whsec_abc', '', 'ünïcödé ✓ 🔑', 'x'.repeat(10_000)]) {
      expect(decryptSecret(encryptSecret(plain, KEY), KEY)).to.equal(plain);
    }
  });

  it('stores v1:<iv>:<tag>:<ciphertext> with a fresh 12-byte IV each time', () => {
    const a = encryptSecret('whsec_same', KEY);
    const b = encryptSecret('whsec_same', KEY);
    expect(a).to.not.equal(b);
    const [version, iv, tag, ciphertext] = a.split(':');
    expect(version).to.equal('v1');
    expect(Buffer.from(iv, 'base64')).to.have.length(12);
    expect(Buffer.from(tag, 'base64')).to.have.length(16);
    expect(Buffer.from(ciphertext, 'base64')).to.have.length('whsec_same'.length);
    expect(iv).to.not.equal(b.split(':')[1]);
    expect(a).to.not.include('whsec_same');
  });

  it('refuses a value whose iv, tag or ciphertext was altered', () => {
    const stored = encryptSecret('whsec_tamper-me', KEY);
    for (const index of [1, 2, 3]) {
      expect(() => decryptSecret(tamper(stored, index), KEY), `part ${index}`).to.throw(SecretBoxError);
    }
  });

  it('refuses a truncated tag, a non-canonical encoding and unknown formats', () => {
    const stored = encryptSecret('whsec_x', KEY);
    const parts = stored.split(':');
    const shortTag = [parts[0], parts[1], Buffer.from(parts[2], 'base64').subarray(0, 12).toString('base64'), parts[3]].join(':');
    expect(() => decryptSecret(shortTag, KEY)).to.throw(SecretBoxError, 'unknown format');
    // The tag's last base64 character before "==" carries 4 unused bits; changing them must not go unnoticed.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const sibling = alphabet[alphabet.indexOf(parts[2][21]) ^ 1];
    const altered = parts[2].slice(0, 21) + sibling + '==';
    expect(Buffer.from(altered, 'base64').equals(Buffer.from(parts[2], 'base64'))).to.equal(true);
    expect(() => decryptSecret([parts[0], parts[1], altered, parts[3]].join(':'), KEY)).to.throw(SecretBoxError, 'unknown format');
    for (const bad of ['', 'plain-secret', `v2:${parts.slice(1).join(':')}`, parts.slice(0, 3).join(':'), `${stored}:extra`]) {
      expect(() => decryptSecret(bad, KEY), bad).to.throw(SecretBoxError);
    }
  });

  it('refuses to decrypt with another key, without echoing the secret', () => {
    const stored = encryptSecret('whsec_wrong-key', KEY);
    expect(() => decryptSecret(stored, randomBytes(32)))
      .to.throw(SecretBoxError)
      .with.property('message')
      .that.does.not.include('whsec_wrong-key');
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => encryptSecret('x', randomBytes(16))).to.throw(SecretBoxError, '32 bytes');
    expect(() => decryptSecret('v1:a:b:c', randomBytes(31))).to.throw(SecretBoxError, '32 bytes');
  });
});

describe('parseEncryptionKey', () => {
  it('decodes a base64 key of exactly 32 bytes', () => {
    const key = randomBytes(32);
    expect(parseEncryptionKey(key.toString('base64')).equals(key)).to.equal(true);
    expect(parseEncryptionKey(`  ${key.toString('base64')}\n`).equals(key)).to.equal(true);
  });

  it('rejects 31- and 33-byte keys, saying how long they are', () => {
    expect(() => parseEncryptionKey(randomBytes(31).toString('base64'))).to.throw(SecretBoxError, 'exactly 32 bytes, not 31');
    expect(() => parseEncryptionKey(randomBytes(33).toString('base64'))).to.throw(SecretBoxError, 'exactly 32 bytes, not 33');
  });

  it('rejects text that is not base64, without echoing it', () => {
    for (const bad of ['', 'not base64 at all!!', '*'.repeat(44), randomBytes(32).toString('hex')]) {
      expect(() => parseEncryptionKey(bad), bad)
        .to.throw(SecretBoxError)
        .with.property('message')
        .that.does.not.include(bad || '\u0000');
    }
  });
});

describe('generateChannelSecret', () => {
  it('makes a whsec_ prefixed, base64url secret of 32 random bytes', () => {
    const secret = generateChannelSecret();
    expect(secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice(6), 'base64url')).to.have.length(32);
    expect(generateChannelSecret()).to.not.equal(secret);
  });
});

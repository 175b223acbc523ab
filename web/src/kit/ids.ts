/** Random identifiers, also on plain-http LAN addresses (no secure context: `crypto.randomUUID` is missing there). */

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** A random UUID (version 4). */
export function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = hex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * A fresh `Idempotency-Key` for one user action: `<page>-<32 hex digits>` (the page helps support read the
 * ledger's request log). Every attempt of the action sends this same key.
 */
export function newIdempotencyKey(page: 'widget' | 'dashboard'): string {
  return `${page}-${hex(crypto.getRandomValues(new Uint8Array(16)))}`;
}

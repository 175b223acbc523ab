/**
 * What a scanned (or typed) text names (docs/api/barcodes-and-camera.md): one of our QR labels (the URL
 * `<base>/go/<code>/`, whatever the host, or a bare code), or a product barcode (a GTIN: 8, 12, 13 or 14 digits).
 */
export type Scanned = { kind: 'code'; code: string } | { kind: 'barcode'; gtin: string } | { kind: 'unknown'; text: string };

/** What a code in a URL or typed may look like (the QR service's CODE_SHAPE). */
const CODE_SHAPE = /^[A-Za-z0-9_-]{6,64}$/;
const GTIN = /^(\d{8}|\d{12,14})$/;

export function scannedFrom(raw: string): Scanned {
  const text = raw.trim();
  const go = /(?:^|\/)go\/([A-Za-z0-9_-]{6,64})\/?(?:[?#].*)?$/.exec(text);
  if (go && (text.startsWith('/') || /^https?:\/\//i.test(text))) return { kind: 'code', code: go[1] };
  if (GTIN.test(text)) return { kind: 'barcode', gtin: text };
  if (CODE_SHAPE.test(text)) return { kind: 'code', code: text };
  return { kind: 'unknown', text };
}

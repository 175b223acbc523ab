/**
 * Barcodes for the tests, computed here independently of the service (services/inventory/src/catalog/gtin.ts):
 * GTINs with their GS1 check digit, and the bars of an EAN-13 (for the camera suite, which draws them).
 */
import { randomInt } from 'node:crypto';

/** The GS1 check digit of `body` (weights 3, 1, 3, … from the right). */
export function checkDigit(body: string): string {
  const digits = [...body].reverse().map(Number);
  const sum = digits.reduce((acc, d, i) => acc + d * (i % 2 === 0 ? 3 : 1), 0);
  return String((10 - (sum % 10)) % 10);
}

/** `body` with its check digit appended. */
export const withCheckDigit = (body: string) => body + checkDigit(body);

/** The same GTIN with a wrong last digit. */
export const wrongCheckDigit = (gtin: string) => gtin.slice(0, -1) + String((Number(gtin.slice(-1)) + 1) % 10);

/** A random valid GTIN of `length` digits (8, 12, 13 or 14); EAN-13s start with 4 (a GS1 country prefix). */
export function randomGtin(length: 8 | 12 | 13 | 14 = 13): string {
  let body = length === 13 ? '4' : String(1 + randomInt(9));
  while (body.length < length - 1) body += String(randomInt(10));
  return withCheckDigit(body);
}

// ---- EAN-13 bars --------------------------------------------------------------------------------------------

const L = ['0001101', '0011001', '0010011', '0111101', '0100011', '0110001', '0101111', '0111011', '0110111', '0001011'];
const G = ['0100111', '0110011', '0011011', '0100001', '0011101', '0111001', '0000101', '0010001', '0001001', '0010111'];
const R = ['1110010', '1100110', '1101100', '1000010', '1011100', '1001110', '1010000', '1000100', '1001000', '1110100'];
/** Which of the left six digits use the G (even parity) set, by the first digit. */
const PARITY = ['LLLLLL', 'LLGLGG', 'LLGGLG', 'LLGGGL', 'LGLLGG', 'LGGLLG', 'LGGGLL', 'LGLGLG', 'LGLGGL', 'LGGLGL'];

/** The 95 modules of an EAN-13 (`1` a bar, `0` a space), guards included. */
export function ean13Modules(ean: string): string {
  if (!/^\d{13}$/.test(ean)) throw new Error(`not an EAN-13: ${ean}`);
  const digits = [...ean].map(Number);
  const parity = PARITY[digits[0]];
  let bars = '101';
  for (let i = 1; i <= 6; i++) bars += (parity[i - 1] === 'L' ? L : G)[digits[i]];
  bars += '01010';
  for (let i = 7; i <= 12; i++) bars += R[digits[i]];
  return `${bars}101`;
}

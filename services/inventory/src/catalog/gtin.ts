/**
 * Product barcodes: GTINs (docs/api/barcodes-and-camera.md). A barcode is stored as the company typed it,
 * 8, 12, 13 or 14 digits (EAN-8, UPC-A, EAN-13, GTIN-14) with a correct GS1 check digit, and compared in its
 * 14-digit form (`gtinKey`: left-padded with zeros), as GS1 compares GTINs: a UPC-A `012345678905` and the
 * EAN-13 `0012345678905` a scanner may read from the same bars are one product. The unique index and every
 * lookup use the same expression (`GTIN_KEY_SQL`), so the index serves the lookups.
 */
import Joi from 'joi';

/** The accepted lengths and their names, for messages and docs. */
export const GTIN_LENGTHS: Record<number, string> = { 8: 'EAN-8', 12: 'UPC-A', 13: 'EAN-13', 14: 'GTIN-14' };

/** The SQL of a barcode column's 14-digit key: what the unique index (migration 0013) is built on. */
export const GTIN_KEY_SQL = (column: string) => `lpad(${column}, 14, '0')`;

/** The GS1 check digit of the digits before it: weights 3 and 1 alternate from the rightmost of them. */
export function gtinCheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const digit = body.charCodeAt(body.length - 1 - i) - 48;
    sum += i % 2 === 0 ? digit * 3 : digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** Why `value` is not a GTIN, or undefined when it is one. */
export function gtinProblem(value: string): string | undefined {
  if (!/^\d+$/.test(value)) return 'must contain digits only';
  if (!GTIN_LENGTHS[value.length]) return `must be 8, 12, 13 or 14 digits (EAN-8, UPC-A, EAN-13 or GTIN-14), not ${value.length}`;
  const expected = gtinCheckDigit(value.slice(0, -1));
  const given = Number(value[value.length - 1]);
  if (given !== expected) return `has a wrong check digit: this ${GTIN_LENGTHS[value.length]} ends in ${given} but should end in ${expected}`;
  return undefined;
}

/** The 14-digit form a barcode is compared in. */
export function gtinKey(value: string): string {
  return value.padStart(14, '0');
}

/** A barcode in a request: a GTIN with its check digit. Spaces around it are dropped. */
export const gtinSchema = Joi.string()
  .trim()
  .max(14)
  .custom((value: string, helpers) => {
    const problem = gtinProblem(value);
    return problem ? helpers.message({ custom: `{#label} ${problem}` }) : value;
  })
  .messages({ 'string.max': '{#label} must be 8, 12, 13 or 14 digits (EAN-8, UPC-A, EAN-13 or GTIN-14)' })
  .description('A GTIN: 8, 12, 13 or 14 digits (EAN-8, UPC-A, EAN-13, GTIN-14) whose last digit is the GS1 check digit.');

/**
 * Quantities. The API takes JSON numbers; the database keeps NUMERIC(20,6) and does the arithmetic, so a
 * quantity crosses into SQL as a decimal string and comes back as one. A quantity may have at most the
 * product's `decimals` decimal places; formatting pads or cuts the string, never going through floats.
 */
import Joi from 'joi';
import { ValidationError } from '@pi/common';

export const MAX_QUANTITY = 1e12;

/** A positive quantity given as a JSON number (strings, NaN, infinities and zero are refused). */
export const positiveQuantity = Joi.number().strict().greater(0).max(MAX_QUANTITY);
/** `move/`'s signed quantity: positive is inbound, negative outbound, zero is refused. */
export const signedQuantity = Joi.number().strict().min(-MAX_QUANTITY).max(MAX_QUANTITY).invalid(0);
/** A counted stock for `set`: zero allowed. */
export const countedQuantity = Joi.number().strict().min(0).max(MAX_QUANTITY);

/** Number of decimal places of a finite number as JavaScript prints it (`1e-7` has 7). */
export function decimalPlaces(value: number): number {
  const [mantissa, exponent] = String(value).toLowerCase().split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}

/** 400 for a quantity with more decimal places than the product keeps. */
export function precisionError(field: string, decimals: number): ValidationError {
  return new ValidationError({
    [field]: decimals === 0 ? `${field} must be a whole number for this product` : `${field} allows at most ${decimals} decimal places for this product`,
  });
}

/** The quantity as a decimal string for SQL, after checking it fits the product's precision. */
export function toDecimal(value: number, decimals: number, field = 'quantity'): string {
  if (decimalPlaces(value) > decimals) throw precisionError(field, decimals);
  return String(value);
}

/** `"12.500000"` with 2 decimals → `"12.50"`; with 0 → `"12"`. Exact: string work only. */
export function formatQuantity(numeric: string | number, decimals: number): string {
  const text = typeof numeric === 'number' ? String(numeric) : numeric;
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const digits = decimals > 0 ? `${whole}.${fraction.padEnd(decimals, '0').slice(0, decimals)}` : whole;
  return negative && /[1-9]/.test(digits) ? `-${digits}` : digits;
}

export function stockDisplay(numeric: string | number | null | undefined, decimals: number, unit: string): string {
  return `${formatQuantity(numeric ?? '0', decimals)} ${unit}`;
}

/** JSON numbers for quantities in answers. */
export function toNumber(numeric: string | number | null | undefined): number {
  return Number(numeric ?? 0);
}

/**
 * Hostile values for the fuzz suite (generate.ts), and the JSON text that carries them: numbers at and past
 * every boundary, wrong types, strings the database cannot store or that look like code, keys named like
 * built-in properties. A value is plain data; `RawJson` marks text the body must carry as is (`1e999`, which
 * no JavaScript value serialises to), and objects are prototype-free so that a `__proto__` key is data.
 */
import fc from 'fast-check';

/** JSON text written into the body as is (not as a string). */
export class RawJson {
  constructor(readonly text: string) {}
}

export type FuzzValue = null | boolean | number | string | RawJson | FuzzValue[] | { [key: string]: FuzzValue };

/** An object whose every key, `__proto__` included, is an own data key. */
export function dataObject(entries: Array<[string, FuzzValue]>): { [key: string]: FuzzValue } {
  const object = Object.create(null) as { [key: string]: FuzzValue };
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

/** The JSON text of `value`, raw tokens included. */
export function toJsonText(value: FuzzValue): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .map((key) => `${JSON.stringify(key)}:${toJsonText(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Numbers at and past the boundaries a service may have: huge, tiny, negative, unsafe, over-precise. */
export const boundaryNumbers: fc.Arbitrary<FuzzValue> = fc.oneof(
  fc.constantFrom<FuzzValue>(
    0,
    -0,
    1,
    -1,
    0.5,
    1e-7,
    0.1 + 0.2,
    // eslint-disable-next-line no-loss-of-precision -- more digits than a double holds, on purpose
    123456789.123456789,
    1e12,
    1e12 + 1,
    1e13,
    // eslint-disable-next-line no-loss-of-precision -- more digits than a double holds, on purpose
    99999999999999.99,
    1e14,
    1e15,
    2 ** 31,
    2 ** 31 - 1,
    -(2 ** 31) - 1,
    2 ** 53,
    2 ** 53 + 2,
    2 ** 63,
    -(2 ** 63),
    1e21,
    1e308,
    -1e308,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    new RawJson('1e999'),
    new RawJson('-1e999'),
    new RawJson('1E400'),
    new RawJson('0.0000000000000000000000000000000000000000000001'),
    new RawJson('100000000000000000000000000000000000000000000000000000000'),
    new RawJson('-0.0'),
  ),
  fc.integer({ min: -1000, max: 100000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Strings that stand for numbers, dates or nothing, which a careless parser takes at face value. */
export const numberLikeStrings = fc.constantFrom<FuzzValue>(
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '1e308',
  '0x10',
  '0b11',
  ' 5 ',
  '5 ',
  '1_000',
  '١٢٣',
  '5e-324',
  '-0',
  '',
  'true',
  'false',
  'null',
  'undefined',
  '[object Object]',
  '9999999999999999999999',
  '2025-02-30',
  '-271821-04-20',
  '+275760-09-13T00:00:00.000Z',
  '0000-01-01',
  '9999-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00Z',
  '2025-13-01',
  'now',
);

/** Text a database, a log or a browser might mistreat. */
export const oddStrings: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    'ok\u0000',
    '\ud800',
    'a\udc00b',
    '\ud83d',
    '\uffff\ufffe',
    '\u202eevil\u202c',
    'עברית ومرحبا',
    '📦🧪👩‍👩‍👧',
    'e\u0301\u0301\u0301',
    '\u0001\u0002\u001b[31m',
    '\r\n\t',
    '   ',
    "'; DROP TABLE users; --",
    "' OR '1'='1",
    '" OR ""="',
    '%00',
    '%27%22',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '${7*7}{{7*7}}',
    '__proto__',
    'constructor',
    'pik_' + 'A'.repeat(40),
    'Bearer x',
    '\\',
    '\\u0000',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer({ min: 1, max: 4 }).map((k) => 'x'.repeat(10 ** k + 1)),
  fc.constantFrom(100_001, 300_000).map((n) => 'y'.repeat(n)),
);

/** Keys named like members of Object.prototype, and other keys a schema never takes. */
export const oddKeys = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
  '__lookupSetter__',
  'toJSON',
  'then',
  'length',
  '',
  ' ',
  'a\u0000',
  '\ud800',
  'company_id',
  'id',
  'is_admin',
  'role',
  'tier',
  'k'.repeat(300),
);

/** Values of the wrong type for anything. */
export const wrongTypes: fc.Arbitrary<FuzzValue> = fc.oneof(
  fc.constantFrom<FuzzValue>(null, true, false, [], [[]], [null], dataObject([]), dataObject([['a', 1]]), [1, '2', null]),
  boundaryNumbers,
  numberLikeStrings,
  oddStrings,
);

/** Any hostile value: a boundary number, a number-like string, an odd string, a wrong type. */
export const hostileValue: fc.Arbitrary<FuzzValue> = fc.oneof(
  { arbitrary: boundaryNumbers, weight: 3 },
  { arbitrary: numberLikeStrings, weight: 2 },
  { arbitrary: oddStrings, weight: 3 },
  { arbitrary: wrongTypes, weight: 2 },
);

/**
 * `text` percent-encoded byte by byte (UTF-8; a lone surrogate becomes U+FFFD, as any client would send it),
 * but for the characters `keep` matches (by default the unreserved ones).
 */
export function percentEncode(text: string, keep: RegExp = /[A-Za-z0-9._~-]/): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += keep.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

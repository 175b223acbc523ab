/**
 * Client text the database would refuse or store altered, found anywhere in a request's parsed JSON body,
 * query or path parameters, keys included:
 * - a NUL character: PostgreSQL text cannot hold one (the insert fails, or the driver escapes it to `\0`);
 * - an unpaired UTF-16 surrogate (`"\ud800"`): it has no UTF-8 form, so it would be stored as U+FFFD, and
 *   jsonb refuses it outright;
 * - a key named `__proto__`: JSON.parse makes it an own key, but joi and object spreads drop it silently,
 *   so it would be neither validated nor refused. It is refused like any unknown field.
 * Each problem is named by its field path (dotted, as joi names fields); the walk stops at MAX_NAMED of them
 * (field-map.ts). The walk is iterative (value-walk.ts).
 */
import { FieldMap, MAX_NAMED, addField, fieldMap } from './field-map';
import { WalkEntry, fieldNameOf, keysTo } from './value-walk';

// eslint-disable-next-line no-control-regex -- NUL is the character this check refuses
const NUL = /\u0000/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a string, or undefined when the database can store it as it is. */
export function textProblem(text: string): string | undefined {
  if (NUL.test(text)) return 'must not contain a NUL character';
  if (LONE_SURROGATE.test(text)) return 'must not contain an unpaired surrogate (it is not valid Unicode)';
  return undefined;
}

/**
 * Every such problem in `value`, by field path; `root` names a problem of the value itself (or of a key at
 * its top level).
 */
export function hostileTextFields(value: unknown, root: string): FieldMap {
  const fields = fieldMap();
  let named = 0;
  const record = (field: string, message: string) => {
    addField(fields, field, message);
    named += 1;
  };
  const name = (path: string[]) => fieldNameOf(path, root);
  // Messages start with the field's own name, as joi's do ("name is required").
  const label = (path: string[]) => (path.length ? path[path.length - 1] : root);
  const stack: WalkEntry[] = [{ value }];
  while (stack.length && named < MAX_NAMED) {
    const entry = stack.pop()!;
    const current = entry.value;
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem) {
        const path = keysTo(entry);
        record(name(path), `${label(path)} ${problem}`);
      }
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push({ value: item, key: String(i), parent: entry }));
    } else if (current !== null && typeof current === 'object') {
      for (const key of Object.keys(current)) {
        const keyProblem = textProblem(key);
        if (key === '__proto__') record(name([...keysTo(entry), key]), `${key} is not allowed`);
        else if (keyProblem) {
          const path = keysTo(entry);
          record(name(path), `${label(path)} has a key that ${keyProblem.replace(/^must not contain/, 'contains')}`);
        } else stack.push({ value: (current as Record<string, unknown>)[key], key, parent: entry });
      }
    }
  }
  return fields;
}

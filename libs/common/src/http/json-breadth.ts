/**
 * How wide a request's parsed value is, measured before joi sees it. joi's work, and the refusal it builds,
 * grow with the number of problems it finds: a 1 MB body of 90,000 unknown keys took the inventory 2.2 s of
 * CPU and came back as a 3.6 MB refusal naming every key (docs/api/conventions.md, "Validation errors"). So:
 * - an object with more than MAX_OBJECT_MEMBERS members, or an array with more than MAX_ARRAY_ITEMS items, is
 *   refused at once, naming it: no request of this API comes near either (the longest list any takes is
 *   10,000 serial numbers);
 * - a value of more than MANY_VALUES values in all is checked up to its first problem only.
 */
import { FieldMap, fieldMap } from './field-map';

export const MAX_OBJECT_MEMBERS = 1000;
export const MAX_ARRAY_ITEMS = 10_000;
export const MANY_VALUES = 10_000;

export interface Breadth {
  /** The first object or array too wide to check, by field path, with what is wrong. */
  tooWide?: FieldMap;
  /** Objects, arrays and plain values in all, the value itself included. */
  values: number;
}

interface Entry {
  value: unknown;
  key?: string;
  parent?: Entry;
}

/** A field's dotted path (as joi names fields), spelled out only for a problem; `root` for the value itself. */
function pathOf(entry: Entry, root: string): string {
  const keys: string[] = [];
  for (let e: Entry | undefined = entry; e?.key !== undefined; e = e.parent) keys.push(e.key);
  return keys.length ? keys.reverse().join('.') : root;
}

/** The breadth of `value`; `root` names the value itself. The walk is iterative (depth costs no stack). */
export function breadthOf(value: unknown, root: string): Breadth {
  const stack: Entry[] = [{ value }];
  let values = 0;
  while (stack.length) {
    const entry = stack.pop()!;
    const current = entry.value;
    values += 1;
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      if (current.length > MAX_ARRAY_ITEMS)
        return { tooWide: tooWide(entry, root, `has ${current.length} items; no request takes more than ${MAX_ARRAY_ITEMS}`), values };
      current.forEach((item: unknown, i) => stack.push({ value: item, key: String(i), parent: entry }));
    } else {
      const keys = Object.keys(current);
      if (keys.length > MAX_OBJECT_MEMBERS) {
        return { tooWide: tooWide(entry, root, `has ${keys.length} fields; no request object has more than ${MAX_OBJECT_MEMBERS}`), values };
      }
      for (const key of keys) stack.push({ value: (current as Record<string, unknown>)[key], key, parent: entry });
    }
  }
  return { values };
}

/** The refusal of a too wide object or array, by its path; the message starts with its own name, as joi's do. */
function tooWide(entry: Entry, root: string, problem: string): FieldMap {
  return fieldMap([[pathOf(entry, root), `${entry.key ?? root} ${problem}`]]);
}

/**
 * How wide and how deep a request's parsed value is, measured in one walk before anything checks its members.
 * joi's work, and the refusal it builds, grow with the number of problems it finds: a 1 MB body of 90,000
 * unknown keys took the inventory 2.2 s of CPU and came back as a 3.6 MB refusal naming every key
 * (docs/api/conventions.md, "Validation errors"). So:
 * - an object with more than MAX_OBJECT_MEMBERS members, or an array with more than MAX_ARRAY_ITEMS items, is
 *   refused at once, naming it: no request of this API comes near either (the longest list any takes is
 *   10,000 serial numbers);
 * - a value of more than MANY_VALUES values in all is checked up to its first problem only.
 * The JSON parser (json-body.ts) also asks for the depth, which it bounds.
 */
import { FieldMap, fieldMap } from './field-map';
import { WalkEntry, fieldNameOf, keysTo } from './value-walk';

export const MAX_OBJECT_MEMBERS = 1000;
export const MAX_ARRAY_ITEMS = 10_000;
export const MANY_VALUES = 10_000;

export interface Breadth {
  /** The first object or array too wide to check, by field path, with what is wrong. */
  tooWide?: FieldMap;
  /** Objects, arrays and plain values in all, the value itself included. */
  values: number;
  /** Whether objects or arrays nest deeper than the `maxDepth` asked about (the top level is 1). */
  tooDeep?: boolean;
}

interface Entry extends WalkEntry {
  /** How many objects or arrays hold this value, itself included if it is one. */
  depth: number;
}

/**
 * The breadth of `value`; `root` names the value itself. Nesting deeper than `maxDepth` ends the walk at
 * once (a body too deep is refused for that whatever else it holds).
 */
export function breadthOf(value: unknown, root: string, maxDepth = Infinity): Breadth {
  const stack: Entry[] = [{ value, depth: 1 }];
  let values = 0;
  let tooWide: FieldMap | undefined;
  while (stack.length) {
    const entry = stack.pop()!;
    const current = entry.value;
    values += 1;
    if (current === null || typeof current !== 'object') continue;
    if (entry.depth > maxDepth) return { values, tooDeep: true };
    const depth = entry.depth + 1;
    if (Array.isArray(current)) {
      if (current.length > MAX_ARRAY_ITEMS) tooWide ??= refusal(entry, root, `has ${current.length} items; no request takes more than ${MAX_ARRAY_ITEMS}`);
      current.forEach((item: unknown, i) => stack.push({ value: item, key: String(i), parent: entry, depth }));
    } else {
      const keys = Object.keys(current);
      if (keys.length > MAX_OBJECT_MEMBERS)
        tooWide ??= refusal(entry, root, `has ${keys.length} fields; no request object has more than ${MAX_OBJECT_MEMBERS}`);
      for (const key of keys) stack.push({ value: (current as Record<string, unknown>)[key], key, parent: entry, depth });
    }
    // Without a depth to bound, nothing more is to be learnt from a value already refused.
    if (tooWide && maxDepth === Infinity) return { tooWide, values };
  }
  return tooWide ? { tooWide, values } : { values };
}

/** The refusal of a too wide object or array, by its path; the message starts with its own name, as joi's do. */
function refusal(entry: Entry, root: string, problem: string): FieldMap {
  return fieldMap([[fieldNameOf(keysTo(entry), root), `${entry.key ?? root} ${problem}`]]);
}

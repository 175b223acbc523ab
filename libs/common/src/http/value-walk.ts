/**
 * The walks over a request's parsed value (json-breadth.ts, hostile-text.ts) are iterative, so that a deeply
 * nested body cannot overflow the stack. Each value met links to its parent, so a field's path is only
 * spelled out for a problem.
 */

/** A value met by a walk: its key in its parent (absent for the value itself). */
export interface WalkEntry {
  value: unknown;
  key?: string;
  parent?: WalkEntry;
}

/** The keys from the walked value down to `entry` (none for the value itself). */
export function keysTo(entry: WalkEntry | undefined): string[] {
  const keys: string[] = [];
  for (let e = entry; e?.key !== undefined; e = e.parent) keys.push(e.key);
  return keys.reverse();
}

/** A field's name as joi names fields: its keys dotted, or `root` for the value itself. */
export const fieldNameOf = (keys: string[], root: string): string => (keys.length ? keys.join('.') : root);

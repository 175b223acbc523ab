/**
 * Field errors keyed by what a client chose to name its fields. A plain `{}` would answer for `constructor`,
 * `toString` or `__proto__` from Object.prototype, so a check such as `fields[path] ??= message` would find
 * a "message" already there and record nothing, and validation would pass with nothing checked (docs/api/conventions.md,
 * "Hostile input"). Every map keyed by client input is therefore prototype-free.
 */
export type FieldMap = Record<string, string>;

/** An empty map with no prototype: every key, `__proto__` and `constructor` included, is an own data key. */
export function fieldMap(entries: Iterable<readonly [string, string]> = []): FieldMap {
  const fields = Object.create(null) as FieldMap;
  for (const [field, message] of entries) addField(fields, field, message);
  return fields;
}

/**
 * The most fields one refusal names: a body with thousands of bad values gets a refusal of a bounded size
 * (json-breadth.ts bounds the work of finding them).
 */
export const MAX_NAMED = 100;

/**
 * Records `message` for `field` unless the field already has one (the first problem of a field is kept) or
 * the map already names MAX_NAMED fields.
 */
export function addField(fields: FieldMap, field: string, message: string): void {
  if (Object.prototype.hasOwnProperty.call(fields, field) || Object.keys(fields).length >= MAX_NAMED) return;
  fields[field] = message;
}

/** Adds every field of `more` that `fields` does not name yet. */
export function mergeFields(fields: FieldMap, more: FieldMap): FieldMap {
  for (const field of Object.keys(more)) addField(fields, field, more[field]);
  return fields;
}

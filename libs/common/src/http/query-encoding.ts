/**
 * Query parameters spelled with percent-encoding that is not UTF-8 text (`%`, `%zz`, `%ff`, the overlong
 * `%C0%AF`, an encoded surrogate `%ED%A0%80`). Node's query parsing takes them anyway: a bad escape stays as
 * it was, and bytes that are not UTF-8 become U+FFFD, so a filter would look for text the client never sent.
 * Paths spelled so reach no route (http/paths.ts); a query spelled so is refused by `validate`, naming the
 * parameter (docs/api/paths-and-hostile-input.md, "Hostile input").
 */
import querystring from 'node:querystring';
import { FieldMap, addField, fieldMap } from './field-map';

/** Whether a query component (`+` for a space, as in forms) is valid percent-encoding of UTF-8 text. */
function decodesAsUtf8(component: string): boolean {
  try {
    decodeURIComponent(component.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
}

/** A query parameter's name as the query parser reads it: `+` a space, escapes decoded where they decode. */
export const queryParamName = (rawName: string): string => querystring.unescape(rawName.replace(/\+/g, ' '));

/**
 * Each parameter of `rawQuery` (the URL's query, with or without its `?`) whose name or value is not valid
 * percent-encoded UTF-8, named as the query parser names it (a name that is itself badly encoded: as sent).
 */
export function badlyEncodedQueryFields(rawQuery: string): FieldMap {
  const fields = fieldMap();
  const query = rawQuery.startsWith('?') ? rawQuery.slice(1) : rawQuery;
  if (!query.includes('%')) return fields;
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    const nameDecodes = decodesAsUtf8(name);
    if (nameDecodes && decodesAsUtf8(value)) continue;
    const field = nameDecodes ? queryParamName(name) : name;
    addField(fields, field, `${field} is not valid percent-encoding of UTF-8 text`);
  }
  return fields;
}

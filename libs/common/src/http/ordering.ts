/**
 * `ordering` and `search` on list endpoints (docs/api/ordering-and-search.md).
 *
 * `?ordering=-created_at,name` follows the DRF convention: API field names, comma-separated, `-` for
 * descending. Each list declares a whitelist mapping its API fields to trusted SQL expressions; only those
 * expressions ever reach SQL, so a client's text never does. An unknown field answers 400
 * `validation_error` naming `ordering`. The list's id is always appended as a tie-breaker (in the direction of
 * the last field, so that one index serves the order both ways), which makes pages deterministic.
 */
import Joi from 'joi';
import { literal } from 'sequelize';
import type { Order } from 'sequelize';

/** One orderable API field: the SQL expressions it sorts by, most significant first. */
export interface SortField {
  /** Trusted SQL, e.g. `['lower(name)', 'name']` for a case-insensitive sort with a stable order among equals. */
  sql: readonly string[];
  /** The field alone decides the order (a unique column): no tie-breaker is appended after it. */
  unique?: boolean;
}

export interface ListOrdering {
  /** API field → how it sorts. A string is one SQL expression. */
  fields: Readonly<Record<string, string | SortField>>;
  /** The ordering used when the request names none, in the same syntax (`-created_at`). */
  default: string;
  /** How the default reads in the documentation, where it is not a plain ordering (a list sorted in memory). */
  defaultText?: string;
  /** The tie-breaker column; `id` unless the list's rows are keyed otherwise. */
  tieBreaker?: string;
}

export interface OrderTerm {
  field: string;
  descending: boolean;
}

const MAX_ORDERING_LENGTH = 200;
const MAX_TERMS = 5;

function sortField(list: ListOrdering, field: string): SortField | undefined {
  if (!Object.prototype.hasOwnProperty.call(list.fields, field)) return undefined;
  const f = list.fields[field];
  return typeof f === 'string' ? { sql: [f] } : f;
}

/** Parses `-created_at,name`; returns the terms, or a message saying what is wrong. */
export function parseOrdering(list: ListOrdering, text: string): OrderTerm[] | string {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length > MAX_TERMS) return `must name at most ${MAX_TERMS} fields`;
  const terms: OrderTerm[] = [];
  for (const part of parts) {
    const descending = part.startsWith('-');
    const field = descending ? part.slice(1) : part;
    if (!field) return 'must be a comma-separated list of fields, each optionally prefixed with - for descending';
    if (!sortField(list, field)) return `cannot sort by "${field.slice(0, 50)}"; allowed: ${allowedFields(list)}`;
    if (terms.some((t) => t.field === field)) return `names "${field}" twice`;
    terms.push({ field, descending });
  }
  return terms;
}

export const allowedFields = (list: ListOrdering) => Object.keys(list.fields).join(', ');

/**
 * The `ordering` query parameter of a list: validated against the whitelist and converted to OrderTerm[].
 * Its description (shown in the OpenAPI document) lists the allowed fields and the default.
 */
export function orderingQuery(list: ListOrdering): Joi.Schema {
  const initial = parseOrdering(list, list.default);
  if (typeof initial === 'string') throw new Error(`default ordering "${list.default}": ${initial}`);
  return Joi.string()
    .max(MAX_ORDERING_LENGTH)
    .custom((value: string, helpers) => {
      const terms = parseOrdering(list, value);
      return typeof terms === 'string' ? helpers.message({ custom: `ordering ${terms}` }) : terms;
    })
    .description(
      `Sort order: comma-separated fields, \`-\` before a field for descending. Allowed: ${allowedFields(list)}. ` +
        `Default: ${list.defaultText ?? `\`${list.default}\``}. Ties are broken by id, so pages are stable.`,
    );
}

/** The `search` query parameter: a case-insensitive substring of the fields `what` names. */
export function searchQuery(what: string): Joi.Schema {
  return Joi.string().trim().max(200).allow('').description(`Case-insensitive substring of ${what}; \`%\`, \`_\` and \`\\\` match themselves.`);
}

/** A LIKE pattern matching `text` anywhere: `%`, `_` and `\` match literally (PostgreSQL's default escape is `\`). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

interface SqlTerm {
  sql: string;
  direction: 'ASC' | 'DESC';
}

/** The terms to sort by: the requested ones (or the default), then the tie-breaker unless a unique field ends them. */
function sqlTerms(list: ListOrdering, requested: OrderTerm[] | undefined, qualify: (sql: string) => string): SqlTerm[] {
  const terms = requested?.length ? requested : (parseOrdering(list, list.default) as OrderTerm[]);
  const out: SqlTerm[] = [];
  let lastUnique = false;
  for (const term of terms) {
    const field = sortField(list, term.field)!;
    for (const sql of field.sql) out.push({ sql: qualify(sql), direction: term.descending ? 'DESC' : 'ASC' });
    lastUnique = Boolean(field.unique);
  }
  if (!lastUnique) out.push({ sql: qualify(list.tieBreaker ?? 'id'), direction: terms[terms.length - 1].descending ? 'DESC' : 'ASC' });
  return out;
}

/**
 * The ORDER BY clause (without the keywords) for raw SQL. `alias` prefixes plain column names (`m.` for
 * `created_at`); expressions with their own parentheses are written qualified in the whitelist.
 */
export function orderBySql(list: ListOrdering, requested: OrderTerm[] | undefined, alias?: string): string {
  const qualify = (sql: string) => (alias && /^[a-z_]+$/.test(sql) ? `${alias}.${sql}` : sql);
  return sqlTerms(list, requested, qualify)
    .map((t) => `${t.sql} ${t.direction}`)
    .join(', ');
}

/** The same order for a Sequelize `findAll` on one table (no joins, so unqualified columns are unambiguous). */
export function sequelizeOrder(list: ListOrdering, requested: OrderTerm[] | undefined): Order {
  return sqlTerms(list, requested, (sql) => sql).map((t) => [literal(t.sql), t.direction]);
}

/**
 * For a list computed in memory (monitoring rules): a comparator over the same whitelist, where `value` reads
 * a field of a row. Text compares ignoring case, then exactly; null sorts last ascending, as in PostgreSQL.
 */
export function compareBy<T>(
  list: ListOrdering,
  requested: OrderTerm[] | undefined,
  value: (row: T, field: string) => string | number | boolean | Date | null | undefined,
): (a: T, b: T) => number {
  const terms = requested?.length ? requested : (parseOrdering(list, list.default) as OrderTerm[]);
  const keys = [...terms, { field: list.tieBreaker ?? 'id', descending: terms[terms.length - 1].descending }];
  const cmp = (x: unknown, y: unknown): number => {
    if (x === y) return 0;
    if (x === null || x === undefined) return 1;
    if (y === null || y === undefined) return -1;
    if (typeof x === 'string' && typeof y === 'string') {
      const folded = x.toLowerCase().localeCompare(y.toLowerCase());
      return folded || (x < y ? -1 : x > y ? 1 : 0);
    }
    const a = x instanceof Date ? x.getTime() : Number(x);
    const b = y instanceof Date ? y.getTime() : Number(y);
    return a < b ? -1 : a > b ? 1 : 0;
  };
  return (a, b) => {
    for (const k of keys) {
      const c = cmp(value(a, k.field), value(b, k.field));
      if (c) return k.descending ? -c : c;
    }
    return 0;
  };
}

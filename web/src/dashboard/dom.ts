/**
 * The dashboard's DOM helpers: the pages' shared kit (../kit/dom.ts: `h`, `fill`, `uid`, …) and how the
 * dashboard shows dates and times.
 */
import { type Child, h } from '../kit/dom.js';

export { type Attrs, type Child, append, fill, h, uid } from '../kit/dom.js';

/** `2025-03-01T10:00:00Z` as `2025-03-01 11:00` in the reader's time zone (short and unambiguous); empty for null. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A `<time>` element showing `dateTime(iso)`, with the exact value in `datetime`. */
export function time(iso: string | null | undefined): Child {
  if (!iso) return '—';
  return h('time', { datetime: iso, title: iso }, dateTime(iso));
}

/** A datetime-local input value (local time) for an ISO timestamp. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The ISO timestamp of a datetime-local input value (read as local time); undefined when empty. */
export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}

/**
 * A tiny element builder. Text is always inserted as text nodes (never as HTML), so values from the API can
 * be shown as they are without escaping.
 */

export type Child = Node | string | number | null | undefined | false | Child[];

type Handler = (event: any) => unknown;

export interface Attrs {
  class?: string;
  /** Event listeners: `{click: fn}`. */
  on?: Record<string, Handler>;
  dataset?: Record<string, string>;
  [attribute: string]: unknown;
}

/** Set as properties (after the children, so that a select's `value` finds its options). */
const PROPERTIES = new Set(['value', 'checked', 'selected', 'disabled', 'hidden', 'multiple', 'indeterminate', 'open']);

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  const properties: [string, unknown][] = [];
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null) continue;
    if (key === 'on') {
      for (const [event, handler] of Object.entries(value as Record<string, Handler>)) el.addEventListener(event, handler);
    } else if (key === 'class') {
      if (value) el.className = String(value);
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (PROPERTIES.has(key)) {
      properties.push([key, value]);
    } else if (value === false) {
      continue;
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  for (const [key, value] of properties) (el as unknown as Record<string, unknown>)[key] = value;
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces everything inside `el` with `children`. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

let counter = 0;
/** A document-unique id for label/aria wiring. */
export const uid = (prefix: string) => `${prefix}-${++counter}`;

/** A random UUID, also outside secure contexts (where crypto.randomUUID is missing). */
export function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

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

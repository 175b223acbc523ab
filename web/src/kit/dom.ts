/**
 * The pages' one DOM kit: elements built with `h()`, text always inserted as text nodes (never as HTML), so
 * names and messages from the API show as they are and can never become markup; handlers are listeners
 * (`on: {click}`), since the CSP allows no inline handlers.
 */

export type Child = Node | string | number | null | undefined | false | Child[];

/** A listener of any event type (`click` takes a MouseEvent, `keydown` a KeyboardEvent): a method's parameter is bivariant. */
type Handler = { listener(event: Event): unknown }['listener'];

export interface Attrs {
  class?: string | null;
  /** Event listeners: `{click: fn}`. */
  on?: Record<string, Handler>;
  dataset?: Record<string, string>;
  [attribute: string]: unknown;
}

/** Set as properties (after the children, so that a select's `value` finds its options). */
const PROPERTIES = new Set(['value', 'checked', 'selected', 'disabled', 'hidden', 'multiple', 'indeterminate', 'open']);

/**
 * `<tag attrs>children</tag>`: attributes with a null, undefined or false value are left out, `true` sets an
 * empty attribute, `class`, `on`, `dataset` and the PROPERTIES are set as their names say.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  const properties: [string, unknown][] = [];
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'on') {
      for (const [event, handler] of Object.entries(value as Record<string, Handler>)) el.addEventListener(event, handler);
    } else if (key === 'class') {
      if (value) el.className = value as string;
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (PROPERTIES.has(key)) {
      properties.push([key, value]);
    } else {
      el.setAttribute(key, value === true ? '' : `${value as string | number}`);
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
export const uid = (prefix: string): string => `${prefix}-${++counter}`;

/** A labelled form control: `<div class="field"><label for>…</label>control<p class="hint"></div>`. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLDivElement {
  if (!control.id) control.id = uid('f');
  const wrapper = h('div', { class: 'field' }, h('label', { for: control.id }, label), control);
  if (hint) {
    const hintEl = h('p', { class: 'hint', id: uid('hint') }, hint);
    control.setAttribute('aria-describedby', hintEl.id);
    wrapper.appendChild(hintEl);
  }
  return wrapper;
}

export function option(value: string, label: string, selected = false): HTMLOptionElement {
  return h('option', { value, selected }, label);
}

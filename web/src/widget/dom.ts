/**
 * A tiny DOM builder. Everything the widget shows is built as elements and text nodes (never innerHTML), so
 * names and messages from the API can never become markup; handlers are listeners (the CSP allows no inline
 * handlers).
 */
export type Child = Node | string | number | null | undefined | false | Child[];
type AttrValue = string | number | boolean | null | undefined;
export type Attrs = Record<string, AttrValue | EventListener | ((event: never) => void)>;

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value as EventListener);
    else if (name === 'class') el.className = String(value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let idCounter = 0;
/** A document-unique id for label/aria wiring. */
export function uid(prefix: string): string {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** A labelled form control: `<div class="field"><label for>…</label>control<p hint></div>`. */
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
  const el = h('option', { value }, label);
  el.selected = selected;
  return el;
}

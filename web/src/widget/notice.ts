/** Inline notices: a success (polite status) or an error (alert) replacing whatever `box` showed. */
import { type Child, fill, h } from '../kit/dom.js';
import { errorText } from './messages.js';

export function showSuccess(box: HTMLElement, ...content: Child[]): void {
  fill(box, h('p', { class: 'notice notice-ok', role: 'status' }, ...content));
}

export function showError(box: HTMLElement, err: unknown): void {
  fill(box, h('p', { class: 'notice notice-error', role: 'alert' }, errorText(err)));
}

export function showInfo(box: HTMLElement, ...content: Child[]): void {
  fill(box, h('p', { class: 'notice', role: 'status' }, ...content));
}

export function clearNotice(box: HTMLElement): void {
  box.replaceChildren();
}

/** A view's loading line, replaced by its content or by an error. */
export function loading(text = 'Loading…'): HTMLParagraphElement {
  return h('p', { class: 'muted loading', role: 'status' }, text);
}

/** Shared pieces of every screen: notices, the error display, buttons, dialogs, copy and secret fields. */
import { ApiError } from './api.js';
import { Child, fill, h, uid } from './dom.js';
import { detailSentence, errorText, fieldName, humanText } from '../kit/messages.js';

// ---------------------------------------------------------------------------------------------- notices

let noticeRegion: HTMLElement | null = null;
let noticeTimer: number | undefined;

/** The live region notices go to (the shell's, above the screen). */
export function setNoticeRegion(el: HTMLElement): void {
  noticeRegion = el;
}

/**
 * Brings a message into view and gives it the focus, so that it is seen (and read out) wherever the reader was
 * on the page (docs/api/overview-and-appearance.md).
 */
export function reveal(el: HTMLElement): void {
  if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.scrollIntoView({ block: 'center' });
  el.focus({ preventScroll: true });
}

/** Removes the messages of forms, so that only the newest message shows (a form's own does the same: form.ts). */
export function clearFormMessages(except?: Element): void {
  for (const slot of document.querySelectorAll('.form-errors')) if (slot !== except && !slot.contains(except ?? null)) slot.replaceChildren();
}

/**
 * A short message above the screen, replacing any previous one (and the forms' messages); errors stay until
 * dismissed and are brought into view with the focus, successes fade after a while.
 */
export function notify(message: Child, kind: 'success' | 'error' | 'info' = 'success'): void {
  if (!noticeRegion) return;
  window.clearTimeout(noticeTimer);
  clearFormMessages();
  const box = h(
    'div',
    { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : undefined },
    h('div', { class: 'notice-text' }, message),
    h('button', { type: 'button', class: 'link', on: { click: () => clearNotice() } }, 'Dismiss'),
  );
  // One alert: an error box inside the notice does not announce itself a second time.
  for (const inner of box.querySelectorAll('.notice-text [role=alert]')) inner.removeAttribute('role');
  fill(noticeRegion, box);
  if (kind === 'error') reveal(box);
  else noticeTimer = window.setTimeout(clearNotice, 10_000);
}

export function clearNotice(): void {
  window.clearTimeout(noticeTimer);
  if (noticeRegion) noticeRegion.replaceChildren();
}

/** The message of any thrown value; an API error's in words for people (kit/messages.ts). */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return errorText(err.code, err.message);
  if (err instanceof Error) return err.message;
  return String(err);
}

export interface ErrorBoxOptions {
  /**
   * The detail rows to list, as `[key, text]` (a row with an empty key shows its text alone), instead of the
   * details of an ApiError; also listed for other errors.
   */
  details?: [string, string][];
  /** Details of an ApiError not to list (shown elsewhere); when `details` is not given. */
  skip?: Iterable<string>;
  /** Said after the message, in the title (e.g. where the other messages are). */
  note?: string;
}

/**
 * An API error as shown to people: the message, then each detail not shown elsewhere, when to retry after a
 * rate limit, and the request id for support.
 */
export function errorBox(err: unknown, opts: ErrorBoxOptions = {}): HTMLElement {
  const title = h('p', { class: 'error-title' }, messageOf(err), opts.note ? [' ', h('span', null, opts.note)] : null);
  const box = h('div', { class: 'error-box', role: 'alert' }, title);
  let rows: HTMLElement[] = [];
  if (opts.details) {
    rows = opts.details.map(([key, text]) => h('li', null, key ? `${fieldName(key)}: ${humanText(text)}` : text));
  } else if (err instanceof ApiError) {
    const skip = new Set(opts.skip ?? []);
    // Details that the message of the code already says in words are not repeated.
    rows = Object.entries(err.body.details ?? {})
      .filter(([key]) => !skip.has(key) && !(err.code === 'channel_inactive' && key === 'is_active'))
      .map(([key, value]) => h('li', null, detailSentence(key, value)));
  }
  if (rows.length) box.append(h('ul', null, rows));
  if (err instanceof ApiError) {
    if (err.body.retry_after) box.append(h('p', null, `Try again in ${err.body.retry_after} s.`));
    if (err.requestId) box.append(h('p', { class: 'muted small' }, 'For support: request id ', h('code', null, err.requestId), ` (${err.code})`));
  }
  return box;
}

/** Shows an error from an action (not a form) as a notice. */
export function notifyError(err: unknown): void {
  notify(errorBox(err), 'error');
}

// ---------------------------------------------------------------------------------------------- buttons

export interface ButtonOptions {
  kind?: 'primary' | 'secondary' | 'danger' | 'link';
  /** For buttons whose text alone is ambiguous in a list ("Edit" → "Edit Main warehouse"). */
  label?: string;
}

/**
 * A button running `action`; while it runs the button is disabled and marked busy, and a thrown error is
 * shown as a notice.
 */
export function button(text: string, action: (btn: HTMLButtonElement) => unknown, opts: ButtonOptions = {}): HTMLButtonElement {
  const btn = h('button', { type: 'button', class: opts.kind ?? 'secondary', 'aria-label': opts.label }, text);
  const onClick = async (): Promise<void> => {
    if (btn.disabled) return;
    btn.disabled = true;
    btn.setAttribute('aria-busy', 'true');
    try {
      await action(btn);
    } catch (err) {
      notifyError(err);
    } finally {
      btn.disabled = false;
      btn.removeAttribute('aria-busy');
    }
  };
  btn.addEventListener('click', () => void onClick());
  return btn;
}

export const actions = (...buttons: Child[]) => h('div', { class: 'actions' }, buttons);

// ---------------------------------------------------------------------------------------------- dialogs

export interface DialogHandle {
  dialog: HTMLDialogElement;
  close(): void;
}

/**
 * A modal dialog (native `<dialog>`: focus stays inside, Escape closes it, focus returns to where it was).
 * `build` gets the close function; the dialog is removed from the page when it closes.
 */
export function openDialog(title: string, build: (close: () => void) => Child): DialogHandle {
  const titleId = uid('dialog-title');
  const previous = document.activeElement as HTMLElement | null;
  const dialog = h('dialog', { 'aria-labelledby': titleId, class: 'dialog' });
  const close = () => dialog.close();
  dialog.append(
    h('div', { class: 'dialog-head' }, h('h2', { id: titleId }, title), h('button', { type: 'button', class: 'link', on: { click: close } }, 'Close')),
    h('div', { class: 'dialog-body' }, build(close)),
  );
  dialog.addEventListener('close', () => {
    dialog.remove();
    // The opener may have been replaced meanwhile (a list reloaded after a save): then the screen's heading.
    if (previous?.isConnected) previous.focus();
    else document.querySelector<HTMLElement>('main h1')?.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  return { dialog, close };
}

/** Asks before a destructive or irreversible action; resolves true when confirmed. */
export function confirmAction(title: string, message: Child, confirmLabel: string, danger = true): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = false;
    const handle = openDialog(title, (close) => [
      h('div', { class: 'confirm-text' }, message),
      actions(
        h('button', { type: 'button', class: danger ? 'danger' : 'primary', on: { click: () => ((answer = true), close()) } }, confirmLabel),
        h('button', { type: 'button', class: 'secondary', on: { click: close } }, 'Cancel'),
      ),
    ]);
    handle.dialog.addEventListener('close', () => resolve(answer));
  });
}

// ---------------------------------------------------------------------------------------------- values

async function copyText(text: string, fallbackInput?: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!fallbackInput) return false;
    fallbackInput.select();
    // Deprecated, but the only way outside secure contexts.
    return document.execCommand('copy');
  }
}

/** A "Copy" button for `text()`; says "Copied" for a moment (announced through the button's label). */
export function copyButton(text: () => string, what: string, input?: HTMLInputElement): HTMLButtonElement {
  const btn = h('button', { type: 'button', class: 'secondary' }, 'Copy');
  btn.setAttribute('aria-label', `Copy ${what}`);
  const onClick = async (): Promise<void> => {
    const ok = await copyText(text(), input);
    btn.textContent = ok ? 'Copied' : 'Copy failed: select and copy by hand';
    window.setTimeout(() => (btn.textContent = 'Copy'), 2500);
  };
  btn.addEventListener('click', () => void onClick());
  return btn;
}

/**
 * A secret shown masked, with Reveal/Hide and Copy. `label` names it for screen readers and the visible
 * label. `revealed` shows it from the start (a value shown once).
 */
export function secretField(label: string, value: string, opts: { revealed?: boolean; help?: Child } = {}): HTMLElement {
  const id = uid('secret');
  const input = h('input', {
    id,
    type: opts.revealed ? 'text' : 'password',
    readonly: true,
    value,
    class: 'secret-input',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const toggle = h(
    'button',
    { type: 'button', class: 'secondary', 'aria-controls': id, 'aria-pressed': String(Boolean(opts.revealed)) },
    opts.revealed ? 'Hide' : 'Reveal',
  );
  toggle.setAttribute('aria-label', `${opts.revealed ? 'Hide' : 'Reveal'} ${label.toLowerCase()}`);
  toggle.addEventListener('click', () => {
    const show = input.type === 'password';
    input.type = show ? 'text' : 'password';
    toggle.textContent = show ? 'Hide' : 'Reveal';
    toggle.setAttribute('aria-pressed', String(show));
    toggle.setAttribute('aria-label', `${show ? 'Hide' : 'Reveal'} ${label.toLowerCase()}`);
  });
  return h(
    'div',
    { class: 'field secret' },
    h('label', { for: id }, label),
    h(
      'div',
      { class: 'secret-row' },
      input,
      toggle,
      copyButton(() => input.value, label.toLowerCase(), input),
    ),
    opts.help ? h('p', { class: 'help' }, opts.help) : null,
  );
}

export function badge(text: string, tone: 'ok' | 'warn' | 'bad' | 'muted' | 'info' = 'muted'): HTMLElement {
  return h('span', { class: `badge badge-${tone}` }, text);
}

const STATUS_TONES: Record<string, 'ok' | 'warn' | 'bad' | 'muted' | 'info'> = {
  OPEN: 'warn',
  IN_PROGRESS: 'info',
  DONE: 'ok',
  CANCELLED: 'muted',
  RESOLVED: 'ok',
  IGNORED: 'muted',
  VIRGIN: 'muted',
  CONFIGURED: 'info',
  LOCKED: 'ok',
  PENDING: 'info',
  RETRYING: 'warn',
  DELIVERED: 'ok',
  FAILED: 'bad',
  INFO: 'info',
  WARNING: 'warn',
  CRITICAL: 'bad',
};

/** A status or severity value as a coloured badge (the text carries the meaning, colour only helps). */
export const statusBadge = (status: string) => badge(status, STATUS_TONES[status] ?? 'muted');

/** A record's `is_active` as a badge: active or inactive. */
export const activeBadge = (isActive: boolean) => (isActive ? badge('active', 'ok') : badge('inactive'));

export const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** A definition list of `[term, value]` pairs. */
export function facts(pairs: [string, Child][]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    pairs.map(([term, value]) => [h('dt', null, term), h('dd', null, value ?? '—')]),
  );
}

/** Saves a Blob as a file through a temporary link. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A screen's title and lead paragraph. The heading takes focus after navigation (see main.ts). */
export function screenHeader(title: string, lead?: Child): HTMLElement {
  return h('header', { class: 'screen-head' }, h('h1', { tabindex: '-1' }, title), lead ? h('p', { class: 'lead' }, lead) : null);
}

/** A collapsible panel (a native `<details>`: keyboard operable, state announced). */
export function panel(summary: string, content: Child, open = false): HTMLDetailsElement {
  return h('details', { class: 'panel', open }, h('summary', null, summary), h('div', { class: 'panel-body' }, content));
}

export function section(title: string, ...content: Child[]): HTMLElement {
  const id = uid('section');
  return h('section', { class: 'block', 'aria-labelledby': id }, h('h2', { id }, title), content);
}

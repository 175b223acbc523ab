/**
 * Forms from a list of field specs: every control has a visible label, help and error text are wired with
 * `aria-describedby`, and an API error is shown where it belongs. `details` of a 400 names fields (dotted
 * paths for nested ones); `validation_errors` of `invalid_engine_config` name paths inside `engine_config`.
 * Each message goes next to the field of that name, else of the nearest enclosing name (a group), else into
 * the form's error box, which also carries the message and the request id.
 */
import { ApiError, type RequestOptions, type RetryNotice } from './api.js';
import { Child, fill, h, uid } from './dom.js';
import { newIdempotencyKey } from '../kit/ids.js';
import { type KeyedAction, fieldName, humanText, retryText, unknownOutcomeText } from '../kit/messages.js';
import { DialogHandle, clearFormMessages, clearNotice, errorBox, openDialog, reveal } from './ui.js';

export interface Option {
  value: string;
  label: string;
}

export type FieldType =
  'text' | 'password' | 'email' | 'number' | 'date' | 'datetime-local' | 'url' | 'search' | 'select' | 'textarea' | 'checkbox' | 'checkboxes' | 'file';

export interface FieldSpec {
  name: string;
  label: string;
  type?: FieldType;
  options?: (string | Option)[];
  value?: string | boolean | string[];
  required?: boolean;
  placeholder?: string;
  help?: Child;
  min?: number | string;
  max?: number | string;
  step?: number | string;
  rows?: number;
  autocomplete?: string;
  /** Offered in a datalist (free text stays possible). */
  suggestions?: string[];
  accept?: string;
  hidden?: boolean;
  inputmode?: string;
  /** select: several values (an array). */
  multiple?: boolean;
  size?: number;
  /**
   * select: a search box above the picker that asks the API as one types (docs/api/ordering-and-search.md)
   * and offers what it answers; the option chosen stays. Emptying the box offers `options` again.
   */
  lookup?: (text: string) => Promise<(string | Option)[]>;
  /**
   * select with `lookup`: the options come only from the API. The first page of matches (`lookup('')`) is asked
   * when the form is built, instead of preloading every record; typing asks for the matches of the text.
   */
  remote?: boolean;
}

/** How long typing in a picker's search box must pause before the API is asked. */
const LOOKUP_DELAY_MS = 300;

export interface FieldGroup {
  legend: string;
  /** Errors under this path that match no field of the group are shown at the group. */
  name?: string;
  help?: Child;
  fields: FieldSpec[];
}

/** A field's value: text, a checkbox's boolean, the values of a checkbox group or multiple select, a file (or none). */
export type FieldValue = string | boolean | string[] | File | null;
export type Values = Record<string, FieldValue>;

/** A problem found before sending, shown next to `field`. */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export interface FormOptions {
  fields: (FieldSpec | FieldGroup)[];
  submitLabel: string;
  onSubmit: (values: Values, form: Form) => unknown;
  /** More buttons after the submit button. */
  extra?: Child;
  /** Reset the fields after a successful submit (default true). */
  resetOnSuccess?: boolean;
  /** An accessible name for the form. */
  label?: string;
  class?: string;
  /** Renames an error path before it is matched to a field (a body field the form shows under another name). */
  mapPath?: (path: string) => string;
}

interface FieldEntry {
  spec: FieldSpec;
  wrapper: HTMLElement;
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null;
  /** checkboxes: one input per option. */
  boxes: HTMLInputElement[];
  helpId?: string;
  errorEl: HTMLElement;
}

const isGroup = (f: FieldSpec | FieldGroup): f is FieldGroup => 'fields' in f;
const optionOf = (o: string | Option): Option => (typeof o === 'string' ? { value: o, label: o } : o);

/** The field messages of an API error, as `[path, message]`, and whether `details` names fields at all. */
function problemsOf(err: ApiError): { fieldish: [string, string][]; other: [string, string][] } {
  const namesFields = err.status === 400 || err.code === 'already_exists';
  const fieldish: [string, string][] = [];
  const other: [string, string][] = [];
  const validation = err.body.validation_errors;
  for (const [key, value] of Object.entries(err.body.details ?? {})) {
    // The engine config summary repeats validation_errors, which say the same per path.
    if (validation && key === 'engine_config') continue;
    if (namesFields && typeof value === 'string') fieldish.push([key, value]);
    else other.push([key, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  for (const problem of validation ?? []) fieldish.push([problem.path ? `engine_config.${problem.path}` : 'engine_config', problem.message]);
  return { fieldish, other };
}

export class Form {
  readonly el: HTMLFormElement;
  /** Set by `idempotencyKeys`: what the form does (books stock, imports a file, creates a record); sending it again unchanged is safe. */
  keyed?: KeyedAction;
  private retryShown = false;
  private readonly entries = new Map<string, FieldEntry>();
  private readonly groupErrors = new Map<string, HTMLElement>();
  private readonly errorSlot = h('div', { class: 'form-errors', tabindex: '-1' });
  private readonly submitButton: HTMLButtonElement;

  constructor(private readonly opts: FormOptions) {
    this.submitButton = h('button', { type: 'submit', class: 'primary' }, opts.submitLabel);
    this.el = h('form', { class: `form ${opts.class ?? ''}`.trim(), 'aria-label': opts.label });
    this.el.append(this.errorSlot);
    for (const item of opts.fields) {
      if (isGroup(item)) {
        const groupError = h('p', { class: 'field-error', hidden: true });
        if (item.name) this.groupErrors.set(item.name, groupError);
        this.el.append(
          h(
            'fieldset',
            { class: 'group' },
            h('legend', null, item.legend),
            item.help ? h('p', { class: 'help' }, item.help) : null,
            groupError,
            h(
              'div',
              { class: 'group-fields' },
              item.fields.map((f) => this.renderField(f)),
            ),
          ),
        );
      } else {
        this.el.append(this.renderField(item));
      }
    }
    this.el.append(h('div', { class: 'actions' }, this.submitButton, opts.extra));
    this.el.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submit();
    });
  }

  private renderField(spec: FieldSpec): HTMLElement {
    const id = uid(`f-${spec.name.replace(/[^\w-]/g, '-')}`);
    const errorEl = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
    const helpId = spec.help ? `${id}-help` : undefined;
    const help = spec.help ? h('p', { class: 'help', id: helpId }, spec.help) : null;
    const type = spec.type ?? 'text';
    let control: FieldEntry['control'] = null;
    const boxes: HTMLInputElement[] = [];
    let wrapper: HTMLElement;

    if (type === 'checkboxes') {
      const values = new Set((spec.value as string[] | undefined) ?? []);
      wrapper = h(
        'fieldset',
        { class: 'field checkboxes' },
        h('legend', null, spec.label),
        h(
          'div',
          { class: 'checkbox-row' },
          (spec.options ?? []).map(optionOf).map((o) => {
            const boxId = uid(`${id}-opt`);
            const box = h('input', { type: 'checkbox', id: boxId, name: spec.name, value: o.value, checked: values.has(o.value) });
            boxes.push(box);
            return h('span', { class: 'check' }, box, h('label', { for: boxId }, o.label));
          }),
        ),
        help,
        errorEl,
      );
    } else if (type === 'checkbox') {
      control = h('input', { type: 'checkbox', id, name: spec.name, checked: Boolean(spec.value) });
      wrapper = h('div', { class: 'field checkbox' }, h('span', { class: 'check' }, control, h('label', { for: id }, spec.label)), help, errorEl);
    } else {
      if (type === 'select') {
        control = h('select', { id, name: spec.name, required: spec.required, multiple: spec.multiple, size: spec.size });
        this.fillOptions(control, spec.options ?? [], String(spec.value ?? ''));
      } else if (type === 'textarea') {
        control = h('textarea', { id, name: spec.name, rows: spec.rows ?? 4, required: spec.required, placeholder: spec.placeholder, spellcheck: 'false' });
        control.value = String(spec.value ?? '');
      } else {
        const listId = spec.suggestions ? `${id}-list` : undefined;
        control = h('input', {
          id,
          name: spec.name,
          type,
          required: spec.required,
          placeholder: spec.placeholder,
          min: spec.min,
          max: spec.max,
          step: spec.step ?? (type === 'number' ? 'any' : undefined),
          autocomplete: spec.autocomplete ?? (type === 'password' ? 'new-password' : 'off'),
          accept: spec.accept,
          list: listId,
          inputmode: spec.inputmode,
        });
        if (type !== 'file') control.value = String(spec.value ?? '');
      }
      const label = h('label', { for: id, id: `${id}-label`, class: spec.required ? 'required' : undefined }, spec.label);
      const lookup = spec.lookup && control instanceof HTMLSelectElement ? this.lookupBox(spec, control, `${id}-label`) : null;
      wrapper = h('div', { class: 'field' }, label, lookup, control, help, errorEl);
      if (spec.suggestions)
        wrapper.append(
          h(
            'datalist',
            { id: `${id}-list` },
            spec.suggestions.map((s) => h('option', { value: s })),
          ),
        );
    }
    wrapper.dataset.field = spec.name;
    const entry: FieldEntry = { spec, wrapper, control, boxes, helpId, errorEl };
    this.entries.set(spec.name, entry);
    this.describe(entry);
    if (spec.hidden) this.show(spec.name, false);
    return wrapper;
  }

  /**
   * The search box of a picker with `lookup`: its answers replace the options, keeping the one chosen. The
   * search waits for typing to pause (LOOKUP_DELAY_MS); Enter searches at once (it never submits the form), and
   * ArrowDown moves to the picker, so the whole choice is made with the keyboard.
   */
  private lookupBox(spec: FieldSpec, select: HTMLSelectElement, labelId: string): HTMLElement {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let asked = 0;
    // Named "Search" and described by the picker's label: a name holding the label ("Search product") would
    // make the label name two controls.
    const box = h('input', {
      type: 'search',
      class: 'picker-search',
      'aria-label': 'Search',
      'aria-describedby': labelId,
      'aria-controls': select.id,
      placeholder: 'Type to search',
      autocomplete: 'off',
      maxlength: '200',
    });
    const search = async () => {
      const text = box.value.trim();
      const ask = ++asked;
      const chosen = select.selectedOptions[0];
      select.setAttribute('aria-busy', 'true');
      const found = text || spec.remote ? await spec.lookup!(text).catch(() => null) : (spec.options ?? []);
      if (ask !== asked) return; // a later search answers instead
      select.removeAttribute('aria-busy');
      if (!found) return;
      const options = found.map(optionOf);
      if (chosen && chosen.value && !options.some((o) => o.value === chosen.value)) {
        // After the "none" option, if the picker has one.
        options.splice(options[0]?.value === '' ? 1 : 0, 0, { value: chosen.value, label: chosen.label });
      }
      // The value chosen now, not when the search began (the user may have picked meanwhile).
      const keep = select.value || chosen?.value || '';
      this.fillOptions(select, options, keep);
    };
    box.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => void search(), LOOKUP_DELAY_MS);
    });
    box.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        clearTimeout(timer);
        void search();
      } else if (event.key === 'ArrowDown') {
        event.preventDefault();
        select.focus();
      }
    });
    if (spec.remote) void search();
    return box;
  }

  private fillOptions(select: HTMLSelectElement, options: (string | Option)[], value: string): void {
    fill(
      select,
      options.map(optionOf).map((o) => h('option', { value: o.value }, o.label)),
    );
    select.value = value;
    if (select.value !== value && select.options.length) select.selectedIndex = 0;
  }

  private describe(entry: FieldEntry): void {
    const ids = [entry.helpId, entry.errorEl.hidden ? undefined : entry.errorEl.id].filter(Boolean).join(' ');
    const targets = entry.control ? [entry.control] : entry.boxes;
    for (const t of targets) {
      if (ids) t.setAttribute('aria-describedby', ids);
      else t.removeAttribute('aria-describedby');
    }
  }

  /** The control of a field (not for checkbox groups). */
  control<T extends HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement = HTMLInputElement>(name: string): T {
    const entry = this.entries.get(name);
    if (!entry?.control) throw new Error(`no field ${name}`);
    return entry.control as T;
  }

  /** Runs `listener` when the field changes (and once now when `now`). */
  onChange<V extends FieldValue = FieldValue>(name: string, listener: (value: V) => void, now = false): void {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`no field ${name}`);
    const targets = entry.control ? [entry.control] : entry.boxes;
    for (const t of targets) t.addEventListener('change', () => listener(this.valueOf(entry) as V));
    if (now) listener(this.valueOf(entry) as V);
  }

  /** Shows or hides a field; a hidden field is disabled (so `required` does not block) and left out of values. */
  show(name: string, visible: boolean): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.wrapper.hidden = !visible;
    if (entry.control) entry.control.disabled = !visible;
    for (const box of entry.boxes) box.disabled = !visible;
  }

  setValue(name: string, value: string | boolean | string[]): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    if (entry.boxes.length) {
      const set = new Set(value as string[]);
      for (const box of entry.boxes) box.checked = set.has(box.value);
    } else if (entry.control instanceof HTMLInputElement && entry.control.type === 'checkbox') {
      entry.control.checked = Boolean(value);
    } else if (entry.control instanceof HTMLSelectElement) {
      entry.control.value = String(value ?? '');
      // A value no option has: the first option rather than a blank select.
      if (entry.control.selectedIndex < 0 && entry.control.options.length) entry.control.selectedIndex = 0;
    } else if (entry.control && !(entry.control instanceof HTMLInputElement && entry.control.type === 'file')) {
      entry.control.value = String(value ?? '');
    }
  }

  /** New options for a select, keeping the chosen value when it is still offered. */
  setOptions(name: string, options: (string | Option)[]): void {
    const entry = this.entries.get(name);
    if (!(entry?.control instanceof HTMLSelectElement)) return;
    const keep = entry.control.value;
    this.fillOptions(entry.control, options, keep);
  }

  private valueOf(entry: FieldEntry): FieldValue {
    if (entry.boxes.length) return entry.boxes.filter((b) => b.checked).map((b) => b.value);
    const c = entry.control!;
    if (c instanceof HTMLInputElement && c.type === 'checkbox') return c.checked;
    if (c instanceof HTMLInputElement && c.type === 'file') return c.files?.[0] ?? null;
    if (c instanceof HTMLSelectElement && c.multiple) return Array.from(c.selectedOptions, (o) => o.value);
    return c.value;
  }

  /** Every visible field's value: strings (untrimmed), booleans for checkboxes, arrays for checkbox groups. */
  values(): Values {
    const out: Values = {};
    for (const [name, entry] of this.entries) if (!entry.wrapper.hidden) out[name] = this.valueOf(entry);
    return out;
  }

  reset(): void {
    // A picker's search box starts empty again (and asks for the first page again, for a remote picker).
    for (const box of this.el.querySelectorAll<HTMLInputElement>('input.picker-search')) {
      if (box.value === '') continue;
      box.value = '';
      box.dispatchEvent(new Event('input'));
    }
    for (const [name, entry] of this.entries) {
      const v = entry.spec.value;
      this.setValue(name, v ?? (entry.boxes.length ? [] : entry.spec.type === 'checkbox' ? false : ''));
      if (entry.control instanceof HTMLInputElement && entry.control.type === 'file') entry.control.value = '';
      if (entry.control instanceof HTMLSelectElement && v === undefined && entry.control.options.length) entry.control.selectedIndex = 0;
      entry.control?.dispatchEvent(new Event('change'));
    }
    this.clearErrors();
  }

  clearErrors(): void {
    this.errorSlot.replaceChildren();
    for (const entry of this.entries.values()) {
      entry.errorEl.hidden = true;
      entry.errorEl.replaceChildren();
      entry.wrapper.classList.remove('invalid');
      for (const t of entry.control ? [entry.control] : entry.boxes) t.removeAttribute('aria-invalid');
      this.describe(entry);
    }
    for (const el of this.groupErrors.values()) {
      el.hidden = true;
      el.replaceChildren();
    }
  }

  /** The field (or group) a message for `path` belongs to: the exact name, else the longest enclosing one. */
  private targetOf(path: string): { entry?: FieldEntry; group?: HTMLElement } | null {
    const parts = path.split('.');
    for (let n = parts.length; n > 0; n--) {
      const name = parts.slice(0, n).join('.');
      const entry = this.entries.get(name);
      if (entry && !entry.wrapper.hidden) return { entry };
      const group = this.groupErrors.get(name);
      if (group) return { group };
    }
    return null;
  }

  private fieldMessage(entry: FieldEntry, message: string, path: string): void {
    // The part of the path inside the field, in words; a list position is named with the list ("Monitoring rule 1").
    const inside = path !== entry.spec.name && path.startsWith(`${entry.spec.name}.`) ? path.slice(entry.spec.name.length + 1) : '';
    const relative = inside ? `${fieldName(/^\d/.test(inside) ? `${entry.spec.name.split('.').pop()}.${inside}` : inside)}: ` : '';
    entry.errorEl.append(h('span', { class: 'msg' }, relative + humanText(message)));
    entry.errorEl.hidden = false;
    entry.wrapper.classList.add('invalid');
    for (const t of entry.control ? [entry.control] : entry.boxes) t.setAttribute('aria-invalid', 'true');
    this.describe(entry);
  }

  /** Shows an error: field messages next to their fields, the rest in the form's error box; focuses the first. */
  showErrors(err: unknown): void {
    this.clearErrors();
    // The newest message replaces the previous ones (the shell's notice, other forms' messages).
    clearNotice();
    clearFormMessages(this.errorSlot);
    const leftovers: [string, string][] = [];
    let placed = 0;
    const place = (original: string, message: string) => {
      const path = this.opts.mapPath ? this.opts.mapPath(original) : original;
      const target = this.targetOf(path);
      if (target?.entry) this.fieldMessage(target.entry, message, path);
      else if (target?.group) {
        target.group.append(
          h(
            'span',
            { class: 'msg' },
            path.includes('.') ? `${fieldName(path.split('.').slice(1).join('.') || path)}: ${humanText(message)}` : humanText(message),
          ),
        );
        target.group.hidden = false;
      } else return leftovers.push([path, message]);
      placed++;
    };
    let box: HTMLElement;
    if (err instanceof FieldError) {
      place(err.field, err.message);
      box = errorBox(new Error('Check the highlighted field.'), { details: leftovers });
    } else if (err instanceof ApiError) {
      const { fieldish, other } = problemsOf(err);
      for (const [path, message] of fieldish) place(path, message);
      leftovers.push(...other);
      // Every detail is either next to its field or among the leftovers.
      const note = placed ? 'See the messages next to the fields.' : this.keyed && err.outcomeUnknown ? unknownOutcomeText(this.keyed) : undefined;
      box = errorBox(err, { details: leftovers, note });
    } else {
      box = errorBox(err);
    }
    fill(this.errorSlot, box);
    const firstInvalid = this.el.querySelector<HTMLElement>('[aria-invalid="true"]');
    // The message comes into view with the focus (the field's own message is next to it).
    if (firstInvalid) {
      firstInvalid.scrollIntoView({ block: 'center' });
      firstInvalid.focus({ preventScroll: true });
    } else reveal(this.errorSlot);
  }

  /** Shows `content` (a success message) in the form's message area. */
  showMessage(content: Child): void {
    clearNotice();
    clearFormMessages(this.errorSlot);
    fill(this.errorSlot, h('div', { class: 'form-message', role: 'status' }, content));
  }

  /** Says that the request is sent again, with its key (its last attempt's outcome is unknown: kit/api.ts). */
  showRetry(notice: RetryNotice): void {
    this.submitButton.textContent = `Retrying (${notice.attempt} of ${notice.attempts})…`;
    this.showMessage(retryText(notice, this.keyed));
    this.retryShown = true;
  }

  async submit(): Promise<void> {
    if (this.submitButton.disabled) return;
    this.clearErrors();
    this.submitButton.disabled = true;
    this.submitButton.setAttribute('aria-busy', 'true');
    try {
      await this.opts.onSubmit(this.values(), this);
      if (this.opts.resetOnSuccess !== false) this.reset();
      else if (this.retryShown) this.errorSlot.replaceChildren();
    } catch (err) {
      this.showErrors(err);
    } finally {
      this.retryShown = false;
      this.submitButton.textContent = this.opts.submitLabel;
      this.submitButton.disabled = false;
      this.submitButton.removeAttribute('aria-busy');
    }
  }
}

// ----------------------------------------------------------------------------------------------- dialogs

export interface FormDialogOptions {
  fields: (FieldSpec | FieldGroup)[];
  submitLabel: string;
  /** Sends the change; when it succeeds the dialog closes (an error stays in the form). */
  save: (values: Values) => unknown;
  /** After the dialog closed (a notice, a reload). */
  after?: (values: Values) => unknown;
  /** Wires the form before it is shown (e.g. fields that follow each other). */
  setup?: (form: Form) => void;
}

/** An edit dialog: a form whose successful submit saves, closes the dialog, then runs `after`. */
export function formDialog(title: string, opts: FormDialogOptions): DialogHandle {
  return openDialog(title, (close) => {
    const form = new Form({
      fields: opts.fields,
      submitLabel: opts.submitLabel,
      resetOnSuccess: false,
      onSubmit: async (values) => {
        await opts.save(values);
        close();
        await opts.after?.(values);
      },
    });
    opts.setup?.(form);
    return form.el;
  });
}

// ------------------------------------------------------------------------------------- idempotency keys

/**
 * The `Idempotency-Key` of a form that books, imports or creates (`action`, as its messages say it): the
 * same for every attempt of one submission (retried by the API client while its outcome is unknown, the form
 * saying so) and for a resend of the unchanged form after a failure; a new one once the form changes (a
 * replayed key with another body is refused) or a send succeeded (`next`). `options()` are the request
 * options that carry it.
 */
export function idempotencyKeys(form: Form, action: KeyedAction = 'booking'): { options(): RequestOptions; next(): void } {
  let key = newIdempotencyKey('dashboard');
  const next = () => (key = newIdempotencyKey('dashboard'));
  form.keyed = action;
  form.el.addEventListener('input', next);
  form.el.addEventListener('change', next);
  return { options: () => ({ idempotencyKey: key, onRetry: (notice) => form.showRetry(notice) }), next };
}

// ------------------------------------------------------------------------------------------- converters

/** A stored value as a control's value: empty for null or undefined (stored values are JSON text, numbers and booleans). */
export const inputValue = (value: unknown): string => (value === undefined || value === null ? '' : `${value as string | number | boolean}`);

/** A text input's or select's value as it is: '' for a value of another kind (or none). */
export function str(value: FieldValue | undefined): string {
  return typeof value === 'string' ? value : '';
}

/** A trimmed string, or undefined when empty. */
export function text(value: unknown): string | undefined {
  const s = typeof value === 'string' ? value.trim() : '';
  return s === '' ? undefined : s;
}

/** A number from a number input, or undefined when empty. */
export function num(value: unknown): number | undefined {
  const s = typeof value === 'string' ? value.trim() : '';
  return s === '' ? undefined : Number(s);
}

/** Non-empty lines (or comma-separated entries) of a textarea. */
export function lines(value: FieldValue | undefined): string[] {
  return str(value)
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** An object without its undefined entries (so that absent optional fields are not sent). */
export function compact<T extends Record<string, unknown>>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}

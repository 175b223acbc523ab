/**
 * Tables and paginated lists. A table turns into one card per row on narrow screens (CSS, using each cell's
 * `data-label`). A paged list reads `{count, next, previous, results}` pages of a core list endpoint, with a
 * filter form whose empty fields are left out of the query.
 */
import { Page, Query, get } from './api.js';
import { Child, fill, h, uid } from './dom.js';
import { FieldSpec, Form } from './form.js';
import { errorBox } from './ui.js';

export interface Column<T> {
  label: string;
  cell: (row: T) => Child;
  /** `num` aligns right; `actions` holds buttons. */
  class?: 'num' | 'actions' | 'wide';
}

export interface TableOptions<T> {
  caption: string;
  empty?: string;
  /** More about a row, in a full-width row under it (e.g. a disclosure with the attempts of a delivery). */
  detail?: (row: T) => Child;
}

export function table<T>(columns: Column<T>[], rows: T[], opts: TableOptions<T>): HTMLElement {
  if (!rows.length) return h('p', { class: 'empty' }, opts.empty ?? 'Nothing here yet.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: `data${opts.detail ? ' with-detail' : ''}` },
      h('caption', { class: 'visually-hidden' }, opts.caption),
      h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.class ? `col-${c.class}` : undefined }, c.label)))),
      h(
        'tbody',
        null,
        rows.map((row) => [
          h('tr', { class: opts.detail ? 'has-detail' : undefined }, columns.map((c) => h('td', { class: c.class ? `col-${c.class}` : undefined, 'data-label': c.label }, c.cell(row)))),
          opts.detail ? h('tr', { class: 'detail-row' }, h('td', { colspan: columns.length }, opts.detail(row))) : null,
        ]),
      ),
    ),
  );
}

/** The status filter of lists of records that can be deactivated (`is_active`). */
export const ACTIVE_FILTER: FieldSpec = {
  name: 'is_active',
  label: 'Status',
  type: 'select',
  options: [{ value: '', label: 'Active and inactive' }, { value: 'true', label: 'Active' }, { value: 'false', label: 'Inactive' }],
};

export interface PagedListOptions<T> {
  path: string;
  columns: Column<T>[];
  caption: string;
  empty?: string;
  filters?: FieldSpec[];
  /** Filter values to start with (e.g. from the screen's query string). */
  initial?: Record<string, string>;
  /** Turns the filter form's values into query parameters (default: as they are, empty ones left out). */
  toQuery?: (values: Record<string, any>) => Query;
  /** Fixed query parameters. */
  fixed?: Query;
  pageSize?: number;
  detail?: (row: T) => Child;
  /** Called with each loaded page (e.g. to offer actions on the rows shown). */
  onLoad?: (rows: T[]) => void;
}

export class PagedList<T> {
  readonly el: HTMLElement;
  rows: T[] = [];
  private page = 1;
  private query: Query = {};
  private readonly body = h('div', { class: 'list-body' });
  private readonly status = h('p', { class: 'list-status', role: 'status', tabindex: '-1' });
  private readonly pager = h('nav', { class: 'pager' });
  private filterForm?: Form;

  constructor(private readonly opts: PagedListOptions<T>) {
    const pagerLabel = uid('pager');
    this.pager.setAttribute('aria-label', `Pages of ${opts.caption.toLowerCase()}`);
    this.pager.id = pagerLabel;
    this.el = h('div', { class: 'paged-list' });
    if (opts.filters?.length) {
      const fields = opts.filters.map((f) => ({ ...f, value: opts.initial?.[f.name] ?? f.value }));
      this.filterForm = new Form({
        fields,
        submitLabel: 'Apply filters',
        label: `Filter ${opts.caption.toLowerCase()}`,
        class: 'filters',
        resetOnSuccess: false,
        onSubmit: (values) => this.apply(values),
        extra: h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            on: {
              click: () => {
                for (const f of opts.filters!) this.filterForm!.setValue(f.name, f.value ?? (f.type === 'checkbox' ? false : ''));
                void this.filterForm!.submit();
              },
            },
          },
          'Clear',
        ),
      });
      this.el.append(this.filterForm.el);
      this.query = this.toQuery(this.filterForm.values());
    }
    this.el.append(this.status, this.body, this.pager);
  }

  private toQuery(values: Record<string, any>): Query {
    if (this.opts.toQuery) return this.opts.toQuery(values);
    const q: Query = {};
    for (const [k, v] of Object.entries(values)) if (v !== '' && v !== false && v !== null) q[k] = v;
    return q;
  }

  private async apply(values: Record<string, any>): Promise<void> {
    this.query = this.toQuery(values);
    this.page = 1;
    await this.load(true);
  }

  /** Loads the current page again (after a change). */
  reload(): Promise<void> {
    return this.load(false).catch(() => undefined);
  }

  /** Loads; errors are shown in place of the table (and thrown only to a filter form, which shows them too). */
  async load(throwErrors = false): Promise<void> {
    const pageSize = this.opts.pageSize ?? 25;
    this.el.setAttribute('aria-busy', 'true');
    try {
      const answer = await get<Page<T>>(this.opts.path, { ...this.opts.fixed, ...this.query, page: this.page, page_size: pageSize });
      this.rows = answer.results;
      fill(this.body, table(this.opts.columns, answer.results, { caption: this.opts.caption, empty: this.opts.empty, detail: this.opts.detail }));
      const first = answer.count === 0 ? 0 : (this.page - 1) * pageSize + 1;
      const last = (this.page - 1) * pageSize + answer.results.length;
      this.status.textContent = answer.count === 0 ? '' : `${first}–${last} of ${answer.count}`;
      const pages = Math.max(1, Math.ceil(answer.count / pageSize));
      fill(
        this.pager,
        pages > 1
          ? [
              h('button', { type: 'button', class: 'secondary', disabled: !answer.previous, on: { click: () => this.go(this.page - 1) } }, 'Previous page'),
              h('span', null, `Page ${this.page} of ${pages}`),
              h('button', { type: 'button', class: 'secondary', disabled: !answer.next, on: { click: () => this.go(this.page + 1) } }, 'Next page'),
            ]
          : [],
      );
      this.opts.onLoad?.(answer.results);
    } catch (err) {
      if (throwErrors && this.filterForm) throw err;
      this.rows = [];
      fill(this.body, errorBox(err));
      this.status.textContent = '';
      this.pager.replaceChildren();
    } finally {
      this.el.removeAttribute('aria-busy');
    }
  }

  private async go(page: number): Promise<void> {
    this.page = Math.max(1, page);
    await this.load(false);
    this.status.focus();
  }
}

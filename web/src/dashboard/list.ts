/**
 * Tables and paginated lists. A table turns into one card per row on narrow screens (CSS, using each cell's
 * `data-label`). A paged list reads `{count, next, previous, results}` pages of a core list endpoint, with a
 * filter form whose empty fields are left out of the query. Columns that name an API `ordering` field sort the
 * list when their header is clicked (again: the other way), shown with `aria-sort`; a search box, where the
 * list has one, asks the API (`search=`) a moment after typing stops (docs/api/ordering-and-search.md).
 */
import { Page, Query, get } from './api.js';
import { Child, fill, h, uid } from './dom.js';
import { FieldSpec, Form, type Values } from './form.js';
import { errorBox } from './ui.js';

export interface Column<T> {
  label: string;
  cell: (row: T) => Child;
  /** `num` aligns right; `actions` holds buttons. */
  class?: 'num' | 'actions' | 'wide';
  /** The API's `ordering` field this column sorts by; the header becomes a sort button. */
  sort?: string;
}

/** The list's current sort: an API field and its direction. */
export interface SortState {
  field: string;
  descending: boolean;
}

/** How long typing must pause before a search is sent. */
const SEARCH_DELAY_MS = 300;

export interface TableOptions<T> {
  caption: string;
  empty?: string;
  /** The sort shown in the headers and what a click on a sortable header does. */
  sort?: { current?: SortState; onSort: (field: string) => void };
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
      h(
        'thead',
        { class: opts.sort && columns.some((c) => c.sort) ? 'sortable' : undefined },
        h(
          'tr',
          null,
          columns.map((c) => headerCell(c, opts.sort)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((row) => [
          h(
            'tr',
            { class: opts.detail ? 'has-detail' : undefined },
            columns.map((c) => h('td', { class: c.class ? `col-${c.class}` : undefined, 'data-label': c.label }, c.cell(row))),
          ),
          opts.detail ? h('tr', { class: 'detail-row' }, h('td', { colspan: columns.length }, opts.detail(row))) : null,
        ]),
      ),
    ),
  );
}

/** A column header: a sort button (with `aria-sort` on the header cell) when the column can sort the list. */
function headerCell<T>(c: Column<T>, sort: TableOptions<T>['sort']): HTMLElement {
  const cls = c.class ? `col-${c.class}` : undefined;
  if (!c.sort || !sort) return h('th', { scope: 'col', class: cls }, c.label);
  const active = sort.current?.field === c.sort;
  const direction = active ? (sort.current!.descending ? 'descending' : 'ascending') : 'none';
  const arrow = direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : '';
  const next = active && !sort.current!.descending ? 'descending' : 'ascending';
  return h(
    'th',
    { scope: 'col', class: cls, 'aria-sort': direction },
    h(
      'button',
      { type: 'button', class: 'sort', title: `Sort by ${c.label.toLowerCase()}, ${next}`, on: { click: () => sort.onSort(c.sort!) } },
      c.label,
      h('span', { 'aria-hidden': 'true' }, arrow),
    ),
  );
}

/** The status filter of lists of records that can be deactivated (`is_active`). */
export const ACTIVE_FILTER: FieldSpec = {
  name: 'is_active',
  label: 'Status',
  type: 'select',
  options: [
    { value: '', label: 'Active and inactive' },
    { value: 'true', label: 'Active' },
    { value: 'false', label: 'Inactive' },
  ],
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
  toQuery?: (values: Values) => Query;
  /** Fixed query parameters. */
  fixed?: Query;
  pageSize?: number;
  detail?: (row: T) => Child;
  /** Called with each loaded page (e.g. to offer actions on the rows shown). */
  onLoad?: (rows: T[]) => void;
  /** A search box, labelled with what it searches (e.g. "Search SKU or name"): sends `search=` as one types. */
  search?: string;
  /** The sort to start with (the API's default when absent). */
  sort?: SortState;
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
  private sort?: SortState;
  private search = '';
  private searchTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly opts: PagedListOptions<T>) {
    const pagerLabel = uid('pager');
    this.pager.setAttribute('aria-label', `Pages of ${opts.caption.toLowerCase()}`);
    this.pager.id = pagerLabel;
    this.sort = opts.sort;
    this.el = h('div', { class: 'paged-list' });
    if (opts.search) this.el.append(this.searchBox(opts.search));
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

  private searchBox(label: string): HTMLElement {
    const id = uid('search');
    const input = h('input', {
      type: 'search',
      id,
      name: 'search',
      autocomplete: 'off',
      maxlength: '200',
      on: {
        input: (event: Event) => {
          const box = event.currentTarget as HTMLInputElement;
          clearTimeout(this.searchTimer);
          this.searchTimer = setTimeout(() => {
            const text = box.value.trim();
            if (text === this.search) return;
            this.search = text;
            this.page = 1;
            void this.load(false);
          }, SEARCH_DELAY_MS);
        },
      },
    });
    return h('div', { class: 'list-search', role: 'search' }, h('label', { for: id }, label), input);
  }

  /** A click on a sortable header: that column ascending, or the other way when it already sorts the list. */
  private sortBy(field: string): void {
    this.sort = { field, descending: this.sort?.field === field ? !this.sort.descending : false };
    this.page = 1;
    void this.load(false);
  }

  /** The query parameters of the sort and search, added to the filters'. */
  private listQuery(): Query {
    const q: Query = {};
    if (this.sort) q.ordering = `${this.sort.descending ? '-' : ''}${this.sort.field}`;
    if (this.search) q.search = this.search;
    return q;
  }

  private toQuery(values: Values): Query {
    if (this.opts.toQuery) return this.opts.toQuery(values);
    const q: Query = {};
    // Filter forms hold text inputs, selects and checkboxes, never a file or a checkbox group.
    for (const [k, v] of Object.entries(values)) if (v !== '' && v !== false && v !== null) q[k] = v as Query[string];
    return q;
  }

  private async apply(values: Values): Promise<void> {
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
      const answer = await get<Page<T>>(this.opts.path, { ...this.opts.fixed, ...this.query, ...this.listQuery(), page: this.page, page_size: pageSize });
      this.rows = answer.results;
      const sort = { current: this.sort, onSort: (field: string) => this.sortBy(field) };
      fill(this.body, table(this.opts.columns, answer.results, { caption: this.opts.caption, empty: this.opts.empty, detail: this.opts.detail, sort }));
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

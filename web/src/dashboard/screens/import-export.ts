/**
 * Product import (JSON or CSV, all or nothing, with a dry run first), the CSV imports of locations and opening
 * stock, the spreadsheet downloads (products, stock levels, movements) with their progress, and the company
 * export (one JSON file of every record). Import problems are listed per row and column
 * (docs/api/spreadsheets.md).
 */
import { ApiError, download, request, type RequestOptions } from '../api.js';
import { fill, fromLocalInput, h } from '../dom.js';
import { FieldError, Form, Values, idempotencyKeys, str, text } from '../form.js';
import { table } from '../list.js';
import type { Schema } from '../../kit/api-types.js';
import type { Screen } from '../screen.js';
import { button, errorBox, notify, saveBlob, screenHeader, section } from '../ui.js';

interface RowProblem {
  row: number;
  field: string;
  message: string;
}

const CSV_HELP = [
  'CSV: a header row of ',
  h('code', null, 'sku, name, profile, engine_type, unit, decimals, min_stock, max_stock, description, barcode, is_active'),
  ' (the first four required). JSON: ',
  h('code', null, '{"products": [{"sku", "name", "profile", "engine_config", "description"?}]}'),
  '. At most 5,000 rows; nothing is imported if any row fails. A products download imports as it is.',
];

const UPDATE_HELP =
  'A row whose SKU you have changes that product: the columns the file has are set (an empty cell clears one), the others are left as they are. Download the products, edit them in a spreadsheet, and import the file back.';

function looksLikeJson(content: string): boolean {
  return /^\s*[{[]/.test(content);
}

function rowProblems(err: ApiError): HTMLElement | null {
  const rows = err.body.details?.rows;
  if (!Array.isArray(rows) || !rows.length) return null;
  return table<RowProblem>(
    [
      { label: 'Row', cell: (r) => String(r.row), class: 'num' },
      { label: 'Field', cell: (r) => h('code', null, r.field) },
      { label: 'Problem', cell: (r) => r.message, class: 'wide' },
    ],
    rows as RowProblem[],
    { caption: 'Import problems by row' },
  );
}

interface CsvImport {
  label: string;
  path: string;
  /** What one row is, for the messages: `location(s)`. */
  noun: string;
  placeholder: string;
  help: Array<string | HTMLElement>;
}

/**
 * A chosen file's text. Only UTF-8 is read: `File.text()` would put U+FFFD in place of the accents of a
 * spreadsheet saved in another charset, and the import would store them so (docs/api/spreadsheets.md).
 */
async function fileText(file: File): Promise<string> {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    throw new FieldError('file', 'This file is not UTF-8 text. Save it in UTF-8 (a spreadsheet program calls it "CSV UTF-8") and choose it again.');
  }
}

/** What an import form sends: the chosen file's text, else the pasted content; neither is a field error. */
async function importedText(values: Values): Promise<{ file: File | null; content: string }> {
  const file = values.file as File | null;
  const content = file ? await fileText(file) : str(values.content);
  if (!text(content)) throw new FieldError('file', 'Choose a file or paste the content.');
  return { file, content };
}

interface Upload {
  path: string;
  noun: string;
  content: string;
  contentType: string;
  dryRun: boolean;
  /** The product import's `update_existing`. */
  updateExisting?: boolean;
}

/** What one of the imports answered: its rows written, or on a dry run the rows it would write. */
type ImportAnswer =
  | Schema<'ProductImport'>
  | Schema<'ProductImportDryRun'>
  | Schema<'LocationImport'>
  | Schema<'LocationImportDryRun'>
  | Schema<'OpeningStockImport'>
  | Schema<'OpeningStockImportDryRun'>;

/**
 * What became of the rows of a product import that updates (docs/api/catalog-and-records.md):
 * ` (1 new, 2 updated, 3 unchanged)`; nothing for the other imports, which only create.
 */
function rowCounts(answer: ImportAnswer): string {
  const created = 'created' in answer ? answer.created : 'would_create' in answer ? answer.would_create : undefined;
  const updated = 'updated' in answer ? answer.updated : 'would_update' in answer ? answer.would_update : undefined;
  if (created === undefined || updated === undefined) return '';
  return ` (${created} new, ${updated} updated, ${'unchanged' in answer ? answer.unchanged : 0} unchanged)`;
}

/**
 * Sends an import (or its dry run) and shows what came of it in `outcome`: the count, or the problems by row
 * and column. Any other error is the form's to show. A real import carries the form's `Idempotency-Key` and is
 * retried with it while its outcome is unknown, so a lost answer never imports the file twice
 * (docs/operations/pages.md); the form takes a new key once an import went through.
 */
async function sendImport(outcome: HTMLElement, upload: Upload, keys: ReturnType<typeof idempotencyKeys>): Promise<void> {
  const retried: RequestOptions | undefined = upload.dryRun ? undefined : keys.options();
  try {
    const answer = await request<ImportAnswer>('POST', upload.path, {
      ...retried,
      query: { dry_run: upload.dryRun, ...(upload.updateExisting ? { update_existing: true } : {}) },
      rawBody: upload.content,
      contentType: upload.contentType,
    });
    const message = answer.dry_run
      ? `Dry run passed: ${answer.would_import} ${upload.noun} would be imported${rowCounts(answer)}. Untick "Dry run" and import again to write them.`
      : `${answer.imported} ${upload.noun} imported${rowCounts(answer)}.`;
    if (retried) keys.next();
    fill(outcome, h('div', { class: 'notice notice-success', role: 'status' }, message));
    notify(message);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'import_failed') {
      fill(outcome, h('div', { role: 'alert' }, errorBox(err, { skip: ['rows'] }), rowProblems(err)));
      return;
    }
    throw err;
  }
}

/** A CSV import with its dry run (ticked by default) and its problems by row and column. */
function csvImportForm(spec: CsvImport): HTMLElement {
  const outcome = h('div', { class: 'import-outcome' });
  const form = new Form({
    label: spec.label,
    fields: [
      { name: 'file', label: 'File (.csv)', type: 'file', accept: '.csv,text/csv' },
      { name: 'content', label: 'Or paste the content', type: 'textarea', rows: 5, placeholder: spec.placeholder, help: spec.help },
      { name: 'dry_run', label: 'Dry run: check only, import nothing', type: 'checkbox', value: true },
    ],
    submitLabel: 'Import',
    resetOnSuccess: false,
    onSubmit: async (values) => {
      outcome.replaceChildren();
      const { content } = await importedText(values);
      await sendImport(outcome, { path: spec.path, noun: spec.noun, content, contentType: 'text/csv', dryRun: Boolean(values.dry_run) }, keys);
    },
  });
  const keys = idempotencyKeys(form, 'import');
  return h('div', null, form.el, outcome);
}

const sizeOf = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

/**
 * The three spreadsheet downloads. The file streams in: its rows and bytes are counted as they arrive (a
 * progress bar without an end, since the size is not known before the last row), then it is saved.
 */
function spreadsheetDownloads(): HTMLElement {
  const progress = h('progress', { class: 'export-progress', 'aria-label': 'Download progress', hidden: true });
  const status = h('div', { class: 'sheet-status', role: 'status', 'aria-live': 'polite' });
  const from = h('input', { type: 'datetime-local', id: 'sheet-from', name: 'created_after' });
  const until = h('input', { type: 'datetime-local', id: 'sheet-until', name: 'created_before' });
  let busy = false;

  /** `query` is read when the button is clicked (the movements' period). */
  const get = (what: string, path: string, query: () => Record<string, string | undefined> = () => ({})) =>
    button(
      `Download ${what} (CSV)`,
      async () => {
        if (busy) return;
        busy = true;
        let bytes = 0;
        let lines = 0;
        const show = () =>
          fill(status, `${what[0].toUpperCase()}${what.slice(1)}: ${Math.max(lines - 1, 0).toLocaleString('en')} row(s), ${sizeOf(bytes)} received…`);
        progress.hidden = false;
        progress.removeAttribute('value');
        show();
        try {
          const { blob, filename } = await download(path, query(), (chunk) => {
            bytes += chunk.length;
            for (const byte of chunk) if (byte === 10) lines++;
            show();
          });
          const name = filename ?? `${what.replace(/\s+/g, '-')}.csv`;
          saveBlob(blob, name);
          progress.value = progress.max = 1;
          fill(status, `Downloaded ${name}: ${Math.max(lines - 1, 0).toLocaleString('en')} row(s), ${sizeOf(blob.size)}.`);
        } catch (err) {
          progress.hidden = true;
          fill(status, errorBox(err));
        } finally {
          busy = false;
        }
      },
      { kind: 'secondary' },
    );

  const movements = get('movements', '/api/v1/export/movements/', () => ({
    created_after: fromLocalInput(from.value),
    created_before: fromLocalInput(until.value),
  }));

  return h(
    'div',
    { class: 'sheets' },
    h('p', null, 'Spreadsheet files (CSV, UTF-8) with SKUs, product, location and batch names. Large files stream in: the progress shows what has arrived.'),
    h('div', { class: 'actions' }, get('products', '/api/v1/export/products/'), get('stock levels', '/api/v1/export/stock/')),
    h(
      'fieldset',
      { class: 'sheet-period' },
      h('legend', null, 'Movements (optional period, your local time)'),
      h('label', { for: 'sheet-from' }, 'From'),
      from,
      h('label', { for: 'sheet-until' }, 'Until'),
      until,
      movements,
    ),
    progress,
    status,
  );
}

export const screen: Screen = {
  path: 'import-export',
  title: 'Import & export',
  group: 'Catalog',
  render({ root }) {
    const outcome = h('div', { class: 'import-outcome' });

    const form = new Form({
      label: 'Import products',
      fields: [
        { name: 'file', label: 'File (.csv or .json)', type: 'file', accept: '.csv,.json,text/csv,application/json' },
        {
          name: 'content',
          label: 'Or paste the content',
          type: 'textarea',
          rows: 6,
          placeholder: 'sku,name,profile,engine_type\nA-1,Bolt,STANDARD,counter',
          help: CSV_HELP,
        },
        { name: 'update_existing', label: 'Update the products whose SKU you have', type: 'checkbox', value: false, help: UPDATE_HELP },
        { name: 'dry_run', label: 'Dry run: check only, import nothing', type: 'checkbox', value: true },
      ],
      submitLabel: 'Import',
      resetOnSuccess: false,
      onSubmit: async (values) => {
        outcome.replaceChildren();
        const { file, content } = await importedText(values);
        const json = file ? file.name.toLowerCase().endsWith('.json') || file.type.includes('json') : looksLikeJson(content);
        const contentType = json ? 'application/json' : 'text/csv';
        const upload = {
          path: '/api/v1/product-models/import/',
          noun: 'product(s)',
          content,
          contentType,
          dryRun: Boolean(values.dry_run),
          updateExisting: Boolean(values.update_existing),
        };
        await sendImport(outcome, upload, keys);
      },
    });
    const keys = idempotencyKeys(form, 'import');

    const exportStatus = h('div', { class: 'export-status', role: 'status' });
    const exportButton = button(
      'Download export',
      async () => {
        fill(exportStatus, 'Preparing the export…');
        try {
          const { blob, filename } = await download('/api/v1/export/');
          saveBlob(blob, filename ?? 'export.json');
          fill(exportStatus, `Downloaded ${filename ?? 'export.json'} (${Math.ceil(blob.size / 1024)} kB).`);
        } catch (err) {
          fill(exportStatus, errorBox(err));
        }
      },
      { kind: 'primary' },
    );

    const locationsForm = csvImportForm({
      label: 'Import locations',
      path: '/api/v1/locations/import/',
      noun: 'location(s)',
      placeholder: 'name,type,parent\nMain warehouse,WAREHOUSE,\nShelf A,SHELF,Main warehouse',
      help: [
        'A header row of ',
        h('code', null, 'name, type, parent'),
        '. Type: WAREHOUSE, STORE, SHELF or VEHICLE. Parent: the name of a location you have or of an earlier row. Created in the order of the file; nothing is imported if any row fails.',
      ],
    });
    const stockForm = csvImportForm({
      label: 'Import opening stock',
      path: '/api/v1/stock/import/',
      noun: 'stock row(s)',
      placeholder: 'sku,location,quantity,batch_code,expiration_date\nA-1,Main warehouse,25,,',
      help: [
        'A header row of ',
        h('code', null, 'sku, location, quantity, batch_code, expiration_date, reason'),
        ' (the first three required; a batch code for batch-tracked products). Each row is booked into the ledger as an addition; nothing is booked if any row fails. A stock levels download imports as it is.',
      ],
    });

    root.append(
      screenHeader('Import & export'),
      // Imports are writes: a viewer sees only the downloads (docs/api/roles-and-audit-log.md).
      h(
        'div',
        { class: 'write-only' },
        section('Import products', form.el, outcome),
        section('Import locations', locationsForm),
        section('Import opening stock', stockForm),
      ),
      section('Download spreadsheets', spreadsheetDownloads()),
      section(
        'Export the company',
        h(
          'p',
          null,
          'Every record of the company (products, locations, batches, items, work orders, balances and the ledger) as one JSON file, from one consistent snapshot. One export per hour.',
        ),
        exportButton,
        exportStatus,
      ),
    );
  },
};

/**
 * Product import (JSON or CSV, all or nothing, with a dry run first) and the company export (one JSON file of
 * every record). Import problems are listed per row and field.
 */
import { ApiError, download, request } from '../api.js';
import { fill, h } from '../dom.js';
import { FieldError, Form, str, text } from '../form.js';
import { table } from '../list.js';
import type { Screen } from '../screen.js';
import { button, errorBox, notify, saveBlob, screenHeader, section } from '../ui.js';

interface RowProblem {
  row: number;
  field: string;
  message: string;
}

const CSV_HELP = [
  'CSV: a header row of ',
  h('code', null, 'sku, name, profile, engine_type, unit, decimals, min_stock, max_stock, description'),
  ' (the first four required). JSON: ',
  h('code', null, '{"products": [{"sku", "name", "profile", "engine_config", "description"?}]}'),
  '. At most 5,000 rows; nothing is imported if any row fails.',
];

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
        { name: 'content', label: 'Or paste the content', type: 'textarea', rows: 6, placeholder: 'sku,name,profile,engine_type\nA-1,Bolt,STANDARD,counter', help: CSV_HELP },
        { name: 'dry_run', label: 'Dry run: check only, import nothing', type: 'checkbox', value: true },
      ],
      submitLabel: 'Import',
      resetOnSuccess: false,
      onSubmit: async (values) => {
        outcome.replaceChildren();
        const file = values.file as File | null;
        const content = file ? await file.text() : str(values.content);
        if (!text(content)) throw new FieldError('file', 'Choose a file or paste the content.');
        const json = file ? file.name.toLowerCase().endsWith('.json') || file.type.includes('json') : looksLikeJson(content);
        const dryRun = Boolean(values.dry_run);
        try {
          const answer = await request<{ imported: number; would_import?: number; dry_run: boolean }>('POST', '/api/v1/product-models/import/', {
            query: { dry_run: dryRun },
            rawBody: content,
            contentType: json ? 'application/json' : 'text/csv',
          });
          const message = answer.dry_run
            ? `Dry run passed: ${answer.would_import} product(s) would be imported. Untick "Dry run" and import again to write them.`
            : `${answer.imported} product(s) imported.`;
          fill(outcome, h('div', { class: 'notice notice-success', role: 'status' }, message));
          notify(message);
        } catch (err) {
          if (err instanceof ApiError && err.code === 'import_failed') {
            fill(outcome, h('div', { role: 'alert' }, errorBox(err, { skip: ['rows'] }), rowProblems(err)));
            return;
          }
          throw err;
        }
      },
    });

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

    root.append(
      screenHeader('Import & export'),
      section('Import products', form.el, outcome),
      section(
        'Export the company',
        h('p', null, 'Every record of the company (products, locations, batches, items, work orders, balances and the ledger) as one JSON file, from one consistent snapshot. One export per hour.'),
        exportButton,
        exportStatus,
      ),
    );
  },
};

/**
 * QR codes: generate a batch of VIRGIN codes and print their label sheet (an A4 PDF, 20 labels a page, from
 * `labels.pdf`; previewed inline from `labels.svg`), list codes with their targets, show one label, and link
 * VIRGIN codes to a product, item or work order, one or the ones ticked in the list
 * (`POST /api/v1/qr-codes/{code}/configure/`, one request a code; docs/api/barcodes-and-camera.md).
 * Label files need the bearer token, so they are fetched and handed to the browser as downloads.
 */
import { type Page, download, get, post } from '../api.js';
import { fill, h, time } from '../dom.js';
import { FieldError, FieldSpec, Form, Option, Values, formDialog, num, str } from '../form.js';
import { PagedList } from '../list.js';
import { productLabel, productNameCell, productPicker, recordNameCell } from '../model.js';
import type { Screen } from '../screen.js';
import { actions, button, errorBox, notify, openDialog, panel, saveBlob, screenHeader, statusBadge } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

type QrCode = Schema<'QrCode'>;
type Item = Schema<'Item'>;
type WorkOrder = Schema<'WorkOrder'>;

const ITEMS = '/api/v1/items/';
const WORK_ORDERS = '/api/v1/work-orders/';
const itemLabel = (i: Pick<Item, 'serial_number'>) => `Serial ${i.serial_number}`;
const workOrderLabel = (w: Pick<WorkOrder, 'number' | 'title'>) => `${w.number} — ${w.title}`;

/**
 * A picker of items (by serial number) or work orders (by number or title) that asks the API as one types:
 * one page of matches, never the whole list.
 */
function searchPicker<T extends { id: string }>(
  name: string,
  label: string,
  path: string,
  show: (r: T) => string,
  query: Record<string, string | boolean>,
  empty: string,
  hidden: boolean,
): FieldSpec {
  const lookup = async (search: string): Promise<Option[]> => {
    const found = await get<Page<T>>(path, { ...query, search, page_size: 50 });
    return [{ value: '', label: empty }, ...found.results.map((r) => ({ value: r.id, label: show(r) }))];
  };
  return { name, label, type: 'select', options: [{ value: '', label: empty }], lookup, remote: true, hidden };
}

const QR_STATUSES = ['VIRGIN', 'CONFIGURED', 'LOCKED'];
const TARGET_TYPES = ['PRODUCT', 'ITEM', 'WORK_ORDER'];
/** At most this many labels per sheet request (qr service). */
const SHEET_MAX = 200;

/** Parses a label SVG from the service into an element (no scripts: a parsed document runs none, and CSP forbids inline ones). */
async function svgElement(blob: Blob): Promise<Element> {
  const doc = new DOMParser().parseFromString(await blob.text(), 'image/svg+xml');
  const svg = doc.documentElement;
  if (svg.nodeName !== 'svg') throw new Error('The label could not be read.');
  for (const el of Array.from(svg.querySelectorAll('script, foreignObject'))) el.remove();
  const node = document.importNode(svg, true);
  node.setAttribute('role', 'img');
  node.removeAttribute('width');
  node.removeAttribute('height');
  node.classList.add('label-svg');
  return node;
}

async function downloadSheet(query: Record<string, string | number>, name: string): Promise<void> {
  const { blob, filename } = await download('/api/v1/qr-codes/labels.pdf', query);
  saveBlob(blob, filename ?? name);
}

function previewSheet(query: Record<string, string | number>, title: string): void {
  openDialog(title, () => {
    const slot = h('div', { class: 'label-preview', 'aria-busy': 'true' }, h('p', null, 'Loading…'));
    download('/api/v1/qr-codes/labels.svg', query)
      .then(async ({ blob }) => fill(slot, await svgElement(blob)))
      .catch((err) => fill(slot, errorBox(err)))
      .finally(() => slot.removeAttribute('aria-busy'));
    return [
      h('p', { class: 'muted' }, 'Print the PDF for exact A4 sizing; this preview shows the same labels.'),
      actions(button('Download PDF', () => downloadSheet(query, 'qr-labels.pdf'), { kind: 'primary' })),
      slot,
    ];
  });
}

/** Sheets of `codes`, at most 200 labels each. */
function sheetButtons(codes: string[]): HTMLElement {
  const chunks: string[][] = [];
  for (let i = 0; i < codes.length; i += SHEET_MAX) chunks.push(codes.slice(i, i + SHEET_MAX));
  return actions(
    chunks.map((chunk, n) => {
      const range = chunks.length > 1 ? ` ${n * SHEET_MAX + 1}–${n * SHEET_MAX + chunk.length}` : '';
      const query = { codes: chunk.join(',') };
      return [
        button(`Download label sheet${range} (PDF)`, () => downloadSheet(query, 'qr-labels.pdf'), { kind: 'primary' }),
        button(`Preview${range}`, () => previewSheet(query, `Label sheet${range}`), { label: `Preview label sheet${range}` }),
      ];
    }),
  );
}

/** The dialog that links `codes` (VIRGIN) to one target; answers after every code was tried. */
const PICKER_OF: Record<string, string> = { PRODUCT: 'product', ITEM: 'item', WORK_ORDER: 'work_order' };

function linkDialog(codes: string[], done: () => Promise<void>): void {
  const title = codes.length === 1 ? `Link code ${codes[0]}` : `Link ${codes.length} codes`;
  formDialog(title, {
    fields: [
      {
        name: 'target_type',
        label: 'Link to',
        type: 'select',
        options: [
          { value: 'PRODUCT', label: 'A product' },
          { value: 'ITEM', label: 'An item' },
          { value: 'WORK_ORDER', label: 'A work order' },
        ],
        value: 'PRODUCT',
      },
      productPicker({ name: 'product', label: 'Product', empty: 'Choose a product' }),
      searchPicker<Item>('item', 'Item', ITEMS, (i) => itemLabel(i), { is_active: true }, 'Choose an item (search its serial number)', true),
      searchPicker<WorkOrder>('work_order', 'Work order', WORK_ORDERS, workOrderLabel, {}, 'Choose a work order (search its number or title)', true),
    ],
    submitLabel: codes.length === 1 ? 'Link code' : `Link ${codes.length} codes`,
    setup: (form) =>
      form.onChange('target_type', (type: string) => {
        for (const [target, field] of Object.entries(PICKER_OF)) form.show(field, target === type);
      }),
    save: async (values: Values) => {
      const targetType = str(values.target_type);
      const field = PICKER_OF[targetType] ?? 'product';
      const targetId = str(values[field]);
      if (!targetId) throw new FieldError(field, 'is required');
      const refused: string[] = [];
      for (const code of codes) {
        try {
          await post(`/api/v1/qr-codes/${code}/configure/`, { target_type: targetType, target_id: targetId });
        } catch (err) {
          if (codes.length === 1) throw err;
          refused.push(`${code}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      const linked = codes.length - refused.length;
      notify(
        refused.length ? `${linked} code(s) linked; not linked: ${refused.join('; ')}` : `${linked} code(s) linked.`,
        refused.length ? 'error' : 'success',
      );
    },
    after: done,
  });
}

export const screen: Screen = {
  path: 'qr-codes',
  title: 'QR codes',
  group: 'Operations',
  async render({ root }) {
    root.append(
      screenHeader(
        'QR codes',
        'Codes start VIRGIN, are linked to a product, item or work order here or from the widget (CONFIGURED), and can be LOCKED. A scan opens the widget.',
      ),
    );
    // Targets are named per id as rows show them (read once each), never by loading every product.
    const productName = productNameCell(productLabel);
    const itemName = recordNameCell<Item>(ITEMS, itemLabel);
    const workOrderName = recordNameCell<WorkOrder>(WORK_ORDERS, workOrderLabel);
    const targetOf = (c: QrCode) => {
      if (!c.target_type || !c.target_id) return '—';
      const product = c.product_model_id ? productName(c.product_model_id) : null;
      if (c.target_type === 'PRODUCT') return ['Product ', product ?? '—'];
      const target = c.target_type === 'ITEM' ? ['Item ', itemName(c.target_id)] : ['Work order ', workOrderName(c.target_id)];
      return product ? [...target, ' · ', product] : target;
    };
    const result = h('div', { class: 'generated' });

    const generate = new Form({
      label: 'Generate QR codes',
      fields: [
        {
          name: 'count',
          label: 'How many codes',
          type: 'number',
          min: 1,
          max: 1000,
          step: 1,
          value: '20',
          required: true,
          help: '1–1000; a sheet holds 20 labels a page.',
        },
      ],
      submitLabel: 'Generate codes',
      onSubmit: async (values) => {
        const answer = await post<{ count: number; results: QrCode[] }>('/api/v1/qr-codes/', { count: num(values.count) });
        const codes = answer.results.map((c) => c.code);
        fill(
          result,
          h(
            'section',
            { class: 'block', 'aria-label': 'Generated codes' },
            h('p', { role: 'status' }, h('strong', null, `${answer.count} new code(s)`), ': ', codes.slice(0, 10).join(', '), codes.length > 10 ? ', …' : ''),
            sheetButtons(codes),
          ),
        );
        notify(`${answer.count} QR code(s) generated.`);
        await list.reload();
      },
    });

    const bulk: Form = new Form({
      label: 'Label sheet by status',
      fields: [
        { name: 'status', label: 'Codes in status', type: 'select', options: QR_STATUSES, value: 'VIRGIN' },
        { name: 'page', label: 'Page (200 labels each, newest first)', type: 'number', min: 1, step: 1, value: '1' },
      ],
      submitLabel: 'Download label sheet (PDF)',
      resetOnSuccess: false,
      onSubmit: (values) => downloadSheet({ status: str(values.status), page: num(values.page) ?? 1 }, 'qr-labels.pdf'),
      extra: h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          on: { click: (): void => previewSheet({ status: str(bulk.values().status), page: num(bulk.values().page) ?? 1 }, 'Label sheet') },
        },
        'Preview',
      ),
    });

    const pageSheet = h('div', { class: 'page-sheet' });
    /** The VIRGIN codes ticked in the list, linked together to one target. */
    const selected = new Set<string>();
    const linkSelected = button('Link the ticked codes', () => linkDialog([...selected], () => list.reload()), { kind: 'primary' });
    const selection = h('div', { class: 'bulk-link' }, linkSelected);
    const showSelection = () => {
      linkSelected.disabled = selected.size === 0;
      linkSelected.textContent = selected.size ? `Link ${selected.size} ticked code(s)` : 'Tick VIRGIN codes to link them together';
    };
    showSelection();
    const list: PagedList<QrCode> = new PagedList<QrCode>({
      path: '/api/v1/qr-codes/',
      search: 'Search code',
      sort: { field: 'created_at', descending: true },
      caption: 'QR codes',
      empty: 'No codes match.',
      pageSize: 20,
      filters: [
        { name: 'status', label: 'Status', type: 'select', options: [{ value: '', label: 'Any status' }, ...QR_STATUSES] },
        { name: 'target_type', label: 'Target type', type: 'select', options: [{ value: '', label: 'Any target' }, ...TARGET_TYPES] },
      ],
      onLoad: (rows) => {
        selected.clear();
        showSelection();
        fill(pageSheet, rows.length ? [h('p', { class: 'muted small' }, 'The codes on this page:'), sheetButtons(rows.map((r) => r.code))] : []);
      },
      columns: [
        {
          label: 'Pick',
          cell: (c) => {
            if (c.status !== 'VIRGIN') return '';
            const box = h('input', { type: 'checkbox', 'aria-label': `Tick ${c.code} to link it` });
            box.addEventListener('change', () => {
              if (box.checked) selected.add(c.code);
              else selected.delete(c.code);
              showSelection();
            });
            return box;
          },
        },
        { label: 'Code', sort: 'code', cell: (c) => h('code', { class: 'qr-code' }, c.code) },
        { label: 'Status', sort: 'status', cell: (c) => statusBadge(c.status) },
        { label: 'Target', cell: targetOf },
        { label: 'Configured', cell: (c) => time(c.configured_at) },
        { label: 'Locked', cell: (c) => time(c.locked_at) },
        { label: 'Created', sort: 'created_at', cell: (c) => time(c.created_at) },
        {
          label: 'Label',
          class: 'actions',
          cell: (c) =>
            actions(
              c.status === 'VIRGIN' ? button('Link', () => linkDialog([c.code], () => list.reload()), { label: `Link ${c.code}` }) : null,
              button('Label', () => previewSheet({ codes: c.code }, `Label ${c.code}`), { label: `Label of ${c.code}` }),
              button(
                'PNG',
                async () => {
                  const { blob, filename } = await download(`/api/v1/qr-codes/${c.code}/label.png`);
                  saveBlob(blob, filename ?? `qr-${c.code}.png`);
                },
                { label: `Download the label of ${c.code} as PNG` },
              ),
            ),
        },
      ],
    });

    root.append(panel('Generate codes', [generate.el, result], true), panel('Label sheet by status', bulk.el), selection, list.el, pageSheet);
    await list.load();
  },
};

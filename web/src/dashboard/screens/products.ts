/**
 * Products: the catalog, and the product form with its engine config. The engine config is edited field by
 * field (plus the monitoring rules as JSON), so that each of the server's `validation_errors` appears next to
 * the field it names. A product's own page (its stock over time) is product-page.ts.
 */
import { del, patch, post } from '../api.js';
import { h } from '../dom.js';
import { FieldError, FieldSpec, Form, FieldGroup, Values, compact, formDialog, inputValue, num, text } from '../form.js';
import { ACTIVE_FILTER, PagedList } from '../list.js';
import { DIMENSIONAL_UNITS, ENGINE_OF, ENGINE_TYPES, PROFILES, Product, Profile } from '../model.js';
import type { Screen, ScreenContext } from '../screen.js';
import { renderProductPage } from './product-page.js';
import { actions, activeBadge, button, confirmAction, notify, panel, screenHeader } from '../ui.js';

/** The numeric keys of an engine config. */
const NUMERIC_KEYS = ['decimals', 'min_stock', 'min_threshold', 'max_stock'];

const RULES_HELP = [
  'Optional JSON array, e.g. ',
  h('code', null, '[{"trigger_type": "THRESHOLD", "condition_config": {"min": 5}, "severity": "WARNING"}]'),
  '. DATE_OFFSET rules ',
  h('code', null, '{"date_field": "expiration_date", "days_offset": 30}'),
  ' need a BATCH product.',
];

function productFields(product?: Product): (FieldSpec | FieldGroup)[] {
  const config = (product?.engine_config ?? {}) as Record<string, unknown>;
  const profile = product?.profile ?? 'STANDARD';
  return [
    { name: 'sku', label: 'SKU', required: true, value: product?.sku },
    { name: 'name', label: 'Name', required: true, value: product?.name },
    {
      name: 'profile',
      label: 'Profile (tracking mode)',
      type: 'select',
      options: PROFILES,
      value: profile,
      help: 'STANDARD counts, SERIALIZED tracks items, BATCH tracks batches, DIMENSIONAL measures.',
    },
    { name: 'description', label: 'Description', type: 'textarea', rows: 2, value: product?.description ?? '' },
    {
      name: 'barcode',
      label: 'Barcode (optional)',
      value: product?.barcode ?? '',
      inputmode: 'numeric',
      autocomplete: 'off',
      help: 'The EAN-13, EAN-8, UPC-A or GTIN-14 printed on the product, check digit included; the widget’s Scan finds the product by it.',
    },
    {
      legend: 'Engine config',
      name: 'engine_config',
      help: 'Checked by the server against the profile; problems are shown next to each field.',
      fields: [
        {
          name: 'engine_config.engine_type',
          label: 'Engine type',
          type: 'select',
          options: ENGINE_TYPES,
          value: inputValue(config.engine_type) || ENGINE_OF[profile],
        },
        {
          name: 'engine_config.unit',
          label: 'Unit',
          suggestions: DIMENSIONAL_UNITS,
          value: inputValue(config.unit),
          placeholder: profile === 'DIMENSIONAL' ? 'm' : 'pcs',
          help: 'Required for DIMENSIONAL (mm … lb); default pcs.',
        },
        {
          name: 'engine_config.decimals',
          label: 'Decimals',
          type: 'number',
          min: 0,
          max: 6,
          step: 1,
          value: inputValue(config.decimals),
          help: '0–6; 0 for SERIALIZED.',
        },
        { name: 'engine_config.min_stock', label: 'Min stock', type: 'number', min: 0, value: inputValue(config.min_stock) },
        { name: 'engine_config.min_threshold', label: 'Min threshold', type: 'number', min: 0, value: inputValue(config.min_threshold) },
        { name: 'engine_config.max_stock', label: 'Max stock', type: 'number', min: 0, value: inputValue(config.max_stock) },
        {
          name: 'engine_config.monitoring_rules',
          label: 'Monitoring rules (JSON)',
          type: 'textarea',
          rows: 3,
          value: config.monitoring_rules ? JSON.stringify(config.monitoring_rules, null, 1) : '',
          help: RULES_HELP,
        },
      ],
    },
  ];
}

/** The request body of the product form. */
function productBody(values: Values): Record<string, unknown> {
  const engine: Record<string, unknown> = { engine_type: values['engine_config.engine_type'] };
  const unit = text(values['engine_config.unit']);
  if (unit !== undefined) engine.unit = unit;
  for (const key of NUMERIC_KEYS) {
    const n = num(values[`engine_config.${key}`]);
    if (n !== undefined) engine[key] = n;
  }
  const rules = text(values['engine_config.monitoring_rules']);
  if (rules !== undefined) {
    try {
      engine.monitoring_rules = JSON.parse(rules);
    } catch (err) {
      throw new FieldError('engine_config.monitoring_rules', `not valid JSON (${(err as Error).message})`);
    }
  }
  return compact({
    sku: text(values.sku) ?? '',
    name: text(values.name) ?? '',
    profile: values.profile,
    engine_config: engine,
    description: text(values.description) ?? null,
    barcode: text(values.barcode) ?? null,
  });
}

/** When the profile changes, the engine type follows (it must match; it can still be changed by hand). */
function followProfile(form: Form): void {
  form.onChange('profile', (profile: Profile) => {
    form.setValue('engine_config.engine_type', ENGINE_OF[profile]);
    form.control('engine_config.unit').placeholder = profile === 'DIMENSIONAL' ? 'm' : 'pcs';
  });
}

function editProduct(product: Product, done: () => void): void {
  formDialog(`Edit ${product.sku}`, {
    fields: productFields(product),
    submitLabel: 'Save product',
    save: (values) => patch(`/api/v1/product-models/${product.id}/`, productBody(values)),
    after: (values) => {
      notify(`Product ${text(values.sku)} saved.`);
      done();
    },
    setup: followProfile,
  });
}

function renderList({ root, go }: ScreenContext): void {
  const list: PagedList<Product> = new PagedList<Product>({
    path: '/api/v1/product-models/',
    search: 'Search SKU or name',
    sort: { field: 'name', descending: false },
    caption: 'Products',
    empty: 'No products yet: create the first one above.',
    filters: [
      { name: 'barcode', label: 'Barcode', type: 'search' },
      { name: 'profile', label: 'Profile', type: 'select', options: [{ value: '', label: 'Any profile' }, ...PROFILES] },
      ACTIVE_FILTER,
    ],
    columns: [
      { label: 'SKU', sort: 'sku', cell: (p) => h('strong', null, p.sku) },
      // The name opens the product's page (its stock over time), for every role: a viewer has no row actions.
      { label: 'Name', sort: 'name', cell: (p) => h('a', { href: `#/products/${p.id}` }, p.name), class: 'wide' },
      { label: 'Barcode', cell: (p) => (p.barcode ? h('code', null, p.barcode) : '—') },
      { label: 'Profile', cell: (p) => `${p.profile} · ${p.engine_type}` },
      { label: 'Unit', cell: (p) => (p.decimals ? `${p.unit}, ${p.decimals} decimals` : p.unit) },
      { label: 'Status', cell: (p) => activeBadge(p.is_active) },
      {
        label: 'Actions',
        class: 'actions',
        cell: (p) =>
          actions(
            button('Edit', () => editProduct(p, () => void list.reload()), { label: `Edit ${p.sku}` }),
            button('History', () => go(`#/products/${p.id}`), { label: `Stock history of ${p.sku}` }),
            button('Stock', () => go(`#/stock?product_id=${p.id}`), { label: `Stock of ${p.sku}` }),
            button(
              p.is_active ? 'Deactivate' : 'Activate',
              async () => {
                await patch(`/api/v1/product-models/${p.id}/`, { is_active: !p.is_active });
                notify(`${p.sku} ${p.is_active ? 'deactivated' : 'activated'}.`);
                await list.reload();
              },
              { label: `${p.is_active ? 'Deactivate' : 'Activate'} ${p.sku}` },
            ),
            button(
              'Delete',
              async () => {
                const ok = await confirmAction(
                  `Delete ${p.sku}?`,
                  'Products that stock, rules or QR codes refer to cannot be deleted; deactivate them instead.',
                  'Delete product',
                );
                if (!ok) return;
                await del(`/api/v1/product-models/${p.id}/`);
                notify(`${p.sku} deleted.`);
                await list.reload();
              },
              { kind: 'danger', label: `Delete ${p.sku}` },
            ),
          ),
      },
    ],
  });

  const form = new Form({
    label: 'New product',
    fields: productFields(),
    submitLabel: 'Create product',
    onSubmit: async (values) => {
      const created = await post<Product>('/api/v1/product-models/', productBody(values));
      notify(`Product ${created.sku} created.`);
      await list.reload();
    },
  });
  followProfile(form);

  root.append(
    screenHeader('Products', 'The catalog: each product has a profile (how its stock is tracked) and an engine config.'),
    panel('New product', form.el),
    list.el,
  );
  void list.load();
}

export const screen: Screen = {
  path: 'products',
  title: 'Products',
  group: 'Catalog',
  // `#/products/<id>`: the product's page with its stock over time.
  render: (ctx) => (ctx.id ? renderProductPage(ctx) : renderList(ctx)),
};

/**
 * Monitoring rules: the company's own (THRESHOLD: min/max stock; DATE_OFFSET: batches near expiry) and those a
 * product defines (its engine config's rules, its min/max attributes), which are edited on the product.
 */
import { del, patch, post } from '../api.js';
import { h } from '../dom.js';
import { FieldGroup, FieldSpec, Form, Values, compact, formDialog, inputValue, num, str, text } from '../form.js';
import { ACTIVE_FILTER, PagedList } from '../list.js';
import { SEVERITIES, productLabel, productNameCell, productPicker } from '../model.js';
import { ruleLabel } from '../../kit/messages.js';
import type { Screen } from '../screen.js';
import { actions, activeBadge, button, confirmAction, notify, panel, screenHeader, statusBadge } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

type Rule = Schema<'MonitoringRule'>;

const SOURCES: Record<string, string> = { rule: 'rule', engine_config: 'product engine config', attribute: 'product min/max' };

function condition(r: Rule): string {
  // THRESHOLD rules have numeric bounds, DATE_OFFSET ones a date field and days (docs/api/monitoring-and-notifications.md).
  const c = r.condition_config as { min?: number; max?: number; date_field?: string; days_offset?: number };
  if (r.trigger_type === 'THRESHOLD')
    return [c.min !== undefined ? `below ${c.min}` : '', c.max !== undefined ? `above ${c.max}` : ''].filter(Boolean).join(' or ');
  if (r.trigger_type === 'DATE_OFFSET') return `${c.date_field} within ${c.days_offset} day(s)`;
  return JSON.stringify(c);
}

/** The condition fields; THRESHOLD's and DATE_OFFSET's are shown by trigger type. */
function conditionFields(rule?: Rule): FieldGroup[] {
  const c = rule?.condition_config ?? {};
  const type = rule?.trigger_type ?? 'THRESHOLD';
  return [
    {
      legend: 'Condition',
      name: 'condition_config',
      fields: [
        {
          name: 'condition_config.min',
          label: 'Alert below (min)',
          type: 'number',
          min: 0,
          value: inputValue(c.min),
          hidden: type !== 'THRESHOLD',
          help: 'Total physical stock below this; min, max or both.',
        },
        { name: 'condition_config.max', label: 'Alert above (max)', type: 'number', min: 0, value: inputValue(c.max), hidden: type !== 'THRESHOLD' },
        {
          name: 'condition_config.days_offset',
          label: 'Days before expiry',
          type: 'number',
          step: 1,
          value: inputValue(c.days_offset),
          hidden: type !== 'DATE_OFFSET',
          help: 'Batches whose expiration_date is within this many days (BATCH products only).',
        },
      ],
    },
  ];
}

function conditionBody(type: string, v: Values): Record<string, unknown> {
  if (type === 'DATE_OFFSET') return compact({ date_field: 'expiration_date', days_offset: num(v['condition_config.days_offset']) });
  return compact({ min: num(v['condition_config.min']), max: num(v['condition_config.max']) });
}

const common = (rule?: Rule): FieldSpec[] => [
  { name: 'name', label: 'Name', value: rule?.name ?? '', help: 'Optional.' },
  { name: 'severity', label: 'Severity', type: 'select', options: SEVERITIES, value: rule?.severity ?? 'WARNING' },
];

export const screen: Screen = {
  path: 'rules',
  title: 'Rules',
  group: 'Monitoring',
  async render({ root, query, go }) {
    root.append(
      screenHeader('Monitoring rules', 'Evaluated per product by each monitor run (check_rules); a rule that holds opens an event and notifies the channels.'),
    );
    const productName = productNameCell(productLabel);

    const editRule = (r: Rule) =>
      formDialog(`Edit rule ${r.name ?? r.trigger_type}`, {
        fields: [...common(r), ...conditionFields(r)],
        submitLabel: 'Save rule',
        save: (values) =>
          patch(`/api/v1/monitoring-rules/${r.id}/`, {
            name: text(values.name) ?? null,
            severity: values.severity,
            condition_config: conditionBody(r.trigger_type, values),
          }),
        after: async () => {
          notify('Rule saved.');
          await list.reload();
        },
      });

    const list: PagedList<Rule> = new PagedList<Rule>({
      path: '/api/v1/monitoring-rules/',
      caption: 'Monitoring rules',
      empty: 'No rules match.',
      initial: { product_id: query.get('product_id') ?? '' },
      filters: [
        productPicker({ name: 'product_id', label: 'Product', empty: 'All products', value: query.get('product_id') ?? '' }),
        { name: 'trigger_type', label: 'Trigger', type: 'select', options: [{ value: '', label: 'Any trigger' }, 'THRESHOLD', 'DATE_OFFSET'] },
        {
          name: 'source',
          label: 'Source',
          type: 'select',
          options: [{ value: '', label: 'Any source' }, ...Object.entries(SOURCES).map(([value, label]) => ({ value, label }))],
        },
        ACTIVE_FILTER,
      ],
      columns: [
        { label: 'Product', cell: (r) => productName(r.product_id), class: 'wide' },
        { label: 'Rule', sort: 'trigger_type', cell: (r) => [h('strong', null, r.trigger_type), r.name ? ` · ${ruleLabel(r)}` : ''] },
        { label: 'Condition', cell: condition },
        { label: 'Severity', sort: 'severity', cell: (r) => statusBadge(r.severity) },
        { label: 'Source', sort: 'source', cell: (r) => SOURCES[r.source] ?? r.source },
        { label: 'Status', cell: (r) => activeBadge(r.is_active) },
        {
          label: 'Actions',
          class: 'actions',
          cell: (r) =>
            r.editable
              ? actions(
                  button('Edit', () => editRule(r), { label: `Edit rule ${ruleLabel(r)}` }),
                  button(
                    r.is_active ? 'Disable' : 'Enable',
                    async () => {
                      await patch(`/api/v1/monitoring-rules/${r.id}/`, { is_active: !r.is_active });
                      notify(`Rule ${r.is_active ? 'disabled' : 'enabled'}.`);
                      await list.reload();
                    },
                    { label: `${r.is_active ? 'Disable' : 'Enable'} rule ${ruleLabel(r)}` },
                  ),
                  button(
                    'Delete',
                    async () => {
                      if (!(await confirmAction('Delete this rule?', 'Its events stay in the event log.', 'Delete rule'))) return;
                      await del(`/api/v1/monitoring-rules/${r.id}/`);
                      notify('Rule deleted.');
                      await list.reload();
                    },
                    { kind: 'danger', label: `Delete rule ${ruleLabel(r)}` },
                  ),
                )
              : button('Edit on product', () => go('#/products'), { label: `Rule ${ruleLabel(r)} is managed by its product: open products` }),
        },
      ],
    });

    const form = new Form({
      label: 'New rule',
      fields: [
        productPicker({ name: 'product_id', label: 'Product', required: true, empty: 'Choose a product' }),
        {
          name: 'trigger_type',
          label: 'Trigger',
          type: 'select',
          options: [
            { value: 'THRESHOLD', label: 'THRESHOLD: stock below/above' },
            { value: 'DATE_OFFSET', label: 'DATE_OFFSET: batch near expiry' },
          ],
        },
        ...common(),
        ...conditionFields(),
      ],
      submitLabel: 'Create rule',
      onSubmit: async (values) => {
        await post('/api/v1/monitoring-rules/', {
          product_id: values.product_id,
          trigger_type: values.trigger_type,
          condition_config: conditionBody(str(values.trigger_type), values),
          severity: values.severity,
          ...(text(values.name) ? { name: text(values.name) } : {}),
        });
        notify('Rule created.');
        await list.reload();
      },
    });
    form.onChange('trigger_type', (type: string) => {
      form.show('condition_config.min', type === 'THRESHOLD');
      form.show('condition_config.max', type === 'THRESHOLD');
      form.show('condition_config.days_offset', type === 'DATE_OFFSET');
    });

    root.append(panel('New rule', form.el), list.el);
    await list.load();
  },
};

/**
 * The audit log (admins): who changed which user, key, channel, rule, product or location, newest first, with
 * each changed field before and after (docs/api/roles-and-audit-log.md). Secrets arrive as "[changed]" only.
 */
import { get } from '../api.js';
import type { Page } from '../api.js';
import { fromLocalInput, h, time } from '../dom.js';
import { str } from '../form.js';
import { PagedList } from '../list.js';
import { locationNameCell, productLabel, productNameCell, recordNameCell } from '../model.js';
import { ruleLabel } from '../../kit/messages.js';
import type { Screen } from '../screen.js';
import { badge, screenHeader } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

type AuditEntry = Schema<'AuditEntry'>;

const RESOURCE_TYPES: Array<{ value: string; label: string }> = [
  { value: 'user', label: 'Users' },
  { value: 'api_key', label: 'API keys' },
  { value: 'notification_channel', label: 'Notification channels' },
  { value: 'monitoring_rule', label: 'Monitoring rules' },
  { value: 'product_model', label: 'Products' },
  { value: 'location', label: 'Locations' },
  { value: 'company', label: 'Company' },
  { value: 'notification_delivery', label: 'Deliveries' },
];
const typeLabel = (type: string) => RESOURCE_TYPES.find((t) => t.value === type)?.label.replace(/s$/, '') ?? type;

/** A value as a person reads it: text as is, lists joined, objects as compact JSON, nothing as a dash. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.length ? value.map(shown).join(', ') : '(none)';
  if (typeof value === 'object' || typeof value !== 'string') return JSON.stringify(value);
  return value;
}

/** The record's name as the entry itself holds it (a creation, a deletion or a rename carries it): no request. */
function nameInChanges(entry: AuditEntry): string | null {
  const changes = entry.changes as Record<string, { before: unknown; after: unknown } | undefined>;
  const value = (field: string): string | null => {
    const change = changes[field];
    const v = change ? (entry.action === 'delete' ? change.before : change.after) : undefined;
    return typeof v === 'string' && v ? v : null;
  };
  if (entry.resource_type === 'product_model') {
    const [sku, name] = [value('sku'), value('name')];
    return sku && name ? productLabel({ sku, name }) : null;
  }
  return value('name') ?? value('username') ?? value('email');
}

/** Fields that hold the id of a product or a location: shown by name (read once per id), never as an id. */
type NameCell = (id: string | null | undefined) => HTMLElement | string;

function changesOf(entry: AuditEntry, idFields: Record<string, NameCell>): HTMLElement {
  const fields = Object.entries(entry.changes as Record<string, { before: unknown; after: unknown }>);
  if (!fields.length) return h('span', { class: 'muted' }, '—');
  const value = (field: string, v: unknown) => (idFields[field] && typeof v === 'string' ? idFields[field](v) : shown(v));
  return h(
    'dl',
    { class: 'changes' },
    fields.map(([field, { before, after }]) => [
      h('dt', null, field.replace(/_id$/, '').replace(/_/g, ' ')),
      h(
        'dd',
        null,
        entry.action === 'create' ? value(field, after) : entry.action === 'delete' ? value(field, before) : [value(field, before), ' → ', value(field, after)],
      ),
    ]),
  );
}

export const screen: Screen = {
  path: 'audit-log',
  title: 'Audit log',
  group: 'Administration',
  adminOnly: true,
  async render({ root, query }) {
    root.append(
      screenHeader(
        'Audit log',
        'Every change to users, API keys, channels, rules, products and locations: who made it, when, and what each field was before and after. Secrets are never shown.',
      ),
    );
    const [users, keys] = await Promise.all([
      get<Page<Schema<'User'>>>('/api/v1/users/', { page_size: 500 }),
      get<Page<Schema<'ApiKey'>>>('/api/v1/api-keys/', { page_size: 500, include_revoked: true }),
    ]);
    const actorName = new Map<string, string>([
      ...users.results.map((u) => [u.id, u.username] as const),
      ...keys.results.map((k) => [k.id, `key “${k.name}”`] as const),
    ]);
    // Each record by name: from the entry when it holds one, else read by id once per record as rows show them
    // (users and keys are loaded above for the "Who" filter). A record that can no longer be read keeps its short id.
    const productName = productNameCell(productLabel);
    const locationName = locationNameCell();
    const channelName = recordNameCell<{ name: string }>('/api/v1/notification-channels/', (c) => c.name);
    const ruleName = recordNameCell<Schema<'MonitoringRule'>>('/api/v1/monitoring-rules/', ruleLabel);
    const idFields: Record<string, NameCell> = { product_id: productName, parent_id: locationName, location_id: locationName, channel_id: channelName };
    const recordOf = (e: AuditEntry): HTMLElement | string => {
      const named = nameInChanges(e) ?? actorName.get(e.resource_id)?.replace(/^key “(.*)”$/, '$1');
      if (named) return named;
      if (e.resource_type === 'company') return 'your company';
      if (e.resource_type === 'product_model') return productName(e.resource_id);
      if (e.resource_type === 'location') return locationName(e.resource_id);
      if (e.resource_type === 'notification_channel') return channelName(e.resource_id);
      if (e.resource_type === 'monitoring_rule') return ruleName(e.resource_id);
      // Deliveries have no name: the Deliveries screen names them by this short id too.
      return h('code', { class: 'muted small' }, e.resource_id.slice(0, 8));
    };
    const actorOf = (e: AuditEntry) =>
      e.actor.type === 'operator' ? 'operator (command line)' : (actorName.get(e.actor.id ?? '') ?? (e.actor.type === 'api_key' ? 'an API key' : 'a user'));

    const list = new PagedList<AuditEntry>({
      path: '/api/v1/audit-log/',
      caption: 'Audit log',
      empty: 'No changes match.',
      sort: { field: 'created_at', descending: true },
      initial: { resource_type: query.get('resource_type') ?? '', actor: query.get('actor') ?? '' },
      fixed: query.get('resource_id') ? { resource_id: query.get('resource_id')! } : undefined,
      filters: [
        { name: 'resource_type', label: 'Record', type: 'select', options: [{ value: '', label: 'Any record' }, ...RESOURCE_TYPES] },
        {
          name: 'actor',
          label: 'Who',
          type: 'select',
          options: [
            { value: '', label: 'Anyone' },
            ...users.results.map((u) => ({ value: u.id, label: u.username })),
            ...keys.results.map((k) => ({ value: k.id, label: `API key: ${k.name}` })),
          ],
        },
        { name: 'created_after', label: 'From', type: 'datetime-local' },
        { name: 'created_before', label: 'Until', type: 'datetime-local' },
      ],
      toQuery: (v) => ({ ...v, created_after: fromLocalInput(str(v.created_after)), created_before: fromLocalInput(str(v.created_before)) }),
      columns: [
        { label: 'When', sort: 'created_at', cell: (e) => time(e.created_at) },
        { label: 'Who', cell: (e) => actorOf(e) },
        {
          label: 'Action',
          sort: 'action',
          cell: (e) => badge(e.action.replace(/_/g, ' '), e.action === 'delete' || e.action === 'revoke' ? 'bad' : e.action === 'create' ? 'ok' : 'info'),
        },
        { label: 'Record', sort: 'resource_type', cell: (e) => [typeLabel(e.resource_type), ' ', recordOf(e)] },
        { label: 'Changes', cell: (e) => changesOf(e, idFields), class: 'wide' },
      ],
    });
    root.append(list.el);
    await list.load();
  },
};

/**
 * The audit log (admins): who changed which user, key, channel, rule, product or location, newest first, with
 * each changed field before and after (docs/api/roles-and-audit-log.md). Secrets arrive as "[changed]" only.
 */
import { get } from '../api.js';
import type { Page } from '../api.js';
import { fromLocalInput, h, time } from '../dom.js';
import { str } from '../form.js';
import { PagedList } from '../list.js';
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

function changesOf(entry: AuditEntry): HTMLElement {
  const fields = Object.entries(entry.changes as Record<string, { before: unknown; after: unknown }>);
  if (!fields.length) return h('span', { class: 'muted' }, '—');
  return h(
    'dl',
    { class: 'changes' },
    fields.map(([field, { before, after }]) => [
      h('dt', null, field.replace(/_/g, ' ')),
      h('dd', null, entry.action === 'create' ? shown(after) : entry.action === 'delete' ? shown(before) : `${shown(before)} → ${shown(after)}`),
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
      screenHeader('Audit log', 'Every change to users, API keys, channels, rules, products and locations: who made it, when, and what each field was before and after. Secrets are never shown.'),
    );
    const [users, keys] = await Promise.all([
      get<Page<Schema<'User'>>>('/api/v1/users/', { page_size: 500 }),
      get<Page<Schema<'ApiKey'>>>('/api/v1/api-keys/', { page_size: 500, include_revoked: true }),
    ]);
    const actorName = new Map<string, string>([...users.results.map((u) => [u.id, u.username] as const), ...keys.results.map((k) => [k.id, `key “${k.name}”`] as const)]);
    const actorOf = (e: AuditEntry) => (e.actor.type === 'operator' ? 'operator (command line)' : (actorName.get(e.actor.id ?? '') ?? (e.actor.type === 'api_key' ? 'an API key' : 'a user')));

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
        { label: 'Action', sort: 'action', cell: (e) => badge(e.action.replace(/_/g, ' '), e.action === 'delete' || e.action === 'revoke' ? 'bad' : e.action === 'create' ? 'ok' : 'info') },
        { label: 'Record', sort: 'resource_type', cell: (e) => [typeLabel(e.resource_type), ' ', h('code', { class: 'muted small' }, e.resource_id.slice(0, 8))] },
        { label: 'Changes', cell: (e) => changesOf(e), class: 'wide' },
      ],
    });
    root.append(list.el);
    await list.load();
  },
};

/**
 * API keys (admins): create, rotate and revoke the company's keys, and set their permissions, allowed domains
 * and expiry. A key's value is in the answers to create and rotate only: it is shown once, to be copied, and
 * removed from the page when dismissed.
 */
import { del, patch, post } from '../api.js';
import { fill, fromLocalInput, h, time, toLocalInput } from '../dom.js';
import { FieldSpec, Form, Values, formDialog, lines, str, text } from '../form.js';
import { PagedList } from '../list.js';
import type { Screen } from '../screen.js';
import { actions, badge, button, confirmAction, notify, panel, screenHeader, secretField } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

/** A key as listed; `key` (its value) only in the answer that creates or rotates it. */
type ApiKey = Schema<'ApiKey'> & { key?: string };

const PERMISSIONS = ['read', 'write', 'delete'];

function keyFields(key?: ApiKey): FieldSpec[] {
  return [
    { name: 'name', label: 'Name', required: true, value: key?.name },
    {
      name: 'permissions',
      label: 'Permissions',
      type: 'checkboxes',
      options: PERMISSIONS,
      value: key?.permissions ?? ['read'],
      help: 'GET needs read, POST/PUT/PATCH write, DELETE delete.',
    },
    {
      name: 'allowed_domains',
      label: 'Allowed domains',
      type: 'textarea',
      rows: 3,
      value: (key?.allowed_domains ?? []).join('\n'),
      placeholder: 'https://shop.example.com\nexample.org\n*.example.net',
      help: 'One per line: an origin, a host name or a *. subdomain wildcard. Empty: any origin.',
    },
    { name: 'expires_at', label: 'Expires at', type: 'datetime-local', value: toLocalInput(key?.expires_at), help: 'Your local time; empty: never expires.' },
  ];
}

function status(k: ApiKey): HTMLElement {
  if (k.revoked_at) return badge('revoked', 'bad');
  if (k.expires_at && new Date(k.expires_at).getTime() <= Date.now()) return badge('expired', 'warn');
  return badge('active', 'ok');
}

export const screen: Screen = {
  path: 'api-keys',
  title: 'API keys',
  group: 'Administration',
  adminOnly: true,
  async render({ root }) {
    const onceSlot = h('div', { class: 'once-slot' });

    /** The value of a new or rotated key, shown this once. */
    const showOnce = (key: ApiKey, what: string) => {
      const done = h('button', { type: 'button', class: 'primary' }, 'I have copied it');
      const box = h(
        'section',
        { class: 'once', 'aria-labelledby': 'once-title' },
        h('h2', { id: 'once-title', tabindex: '-1' }, `${what}: copy the key now`),
        h('p', null, 'This is the only time the value of ', h('strong', null, key.name), ' is shown: only its hash is stored. Keep it somewhere safe.'),
        secretField('Key value', key.key ?? '', { revealed: true }),
        actions(done),
      );
      done.addEventListener('click', () => {
        onceSlot.replaceChildren();
        root.querySelector<HTMLElement>('h1')?.focus();
      });
      fill(onceSlot, box);
      box.querySelector<HTMLElement>('h2')?.focus();
    };

    const list: PagedList<ApiKey> = new PagedList<ApiKey>({
      path: '/api/v1/api-keys/',
      caption: 'API keys',
      empty: 'No keys match.',
      filters: [
        { name: 'include_revoked', label: 'Show revoked keys', type: 'checkbox' },
        { name: 'include_minted', label: 'Show keys minted by QR scans', type: 'checkbox' },
      ],
      columns: [
        {
          label: 'Name',
          class: 'wide',
          cell: (k) => [
            h('strong', null, k.name),
            k.is_widget_key ? [' ', badge('widget key', 'info')] : null,
            k.minted_from ? [' ', badge('minted', 'muted')] : null,
            h('br'),
            h('code', { class: 'small' }, k.prefix, '…'),
          ],
        },
        { label: 'Permissions', cell: (k) => [k.permissions.join(', '), h('br'), h('span', { class: 'muted small' }, `tier ${k.tier}`)] },
        {
          label: 'Allowed domains',
          cell: (k) =>
            k.allowed_domains.length
              ? h(
                  'ul',
                  { class: 'plain' },
                  k.allowed_domains.map((d) => h('li', { class: 'break' }, d)),
                )
              : 'any',
        },
        { label: 'Expires', cell: (k) => (k.expires_at ? time(k.expires_at) : 'never') },
        {
          label: 'Usage',
          cell: (k) => [`${k.usage_count} request(s)`, h('br'), h('span', { class: 'muted small' }, 'last ', k.last_used_at ? time(k.last_used_at) : 'never')],
        },
        { label: 'Status', cell: status },
        {
          label: 'Actions',
          class: 'actions',
          cell: (k) =>
            k.revoked_at
              ? '—'
              : actions(
                  button('Edit', () => editKey(k), { label: `Edit ${k.name}` }),
                  button(
                    'Rotate',
                    async () => {
                      const ok = await confirmAction(
                        `Rotate ${k.name}?`,
                        k.is_widget_key
                          ? 'A new value is generated; the current one stops working at once, and so does every key minted from QR scans of this widget key.'
                          : 'A new value is generated; the current one stops working at once.',
                        'Rotate key',
                      );
                      if (!ok) return;
                      showOnce(await post<ApiKey>(`/api/v1/api-keys/${k.id}/rotate/`, {}), `${k.name} rotated`);
                      await list.reload();
                    },
                    { label: `Rotate ${k.name}` },
                  ),
                  button(
                    'Revoke',
                    async () => {
                      if (!(await confirmAction(`Revoke ${k.name}?`, 'The key stops working at once; this cannot be undone.', 'Revoke key'))) return;
                      await del(`/api/v1/api-keys/${k.id}/`);
                      notify(`Key ${k.name} revoked.`);
                      await list.reload();
                    },
                    { kind: 'danger', label: `Revoke ${k.name}` },
                  ),
                ),
        },
      ],
    });

    const body = (values: Values) => ({ name: text(values.name) ?? '', permissions: values.permissions, allowed_domains: lines(values.allowed_domains) });

    function editKey(key: ApiKey): void {
      const initialExpiry = toLocalInput(key.expires_at);
      formDialog(`Edit ${key.name}`, {
        fields: keyFields(key),
        submitLabel: 'Save key',
        save: async (values) => {
          const changes: Record<string, unknown> = body(values);
          if (values.expires_at !== initialExpiry) changes.expires_at = fromLocalInput(str(values.expires_at)) ?? null;
          await patch(`/api/v1/api-keys/${key.id}/`, changes);
        },
        after: async (values) => {
          notify(`Key ${text(values.name)} saved.`);
          await list.reload();
        },
      });
    }

    const form = new Form({
      label: 'New API key',
      fields: keyFields(),
      submitLabel: 'Create key',
      onSubmit: async (values) => {
        const expires = fromLocalInput(str(values.expires_at));
        const created = await post<ApiKey>('/api/v1/api-keys/', { ...body(values), ...(expires ? { expires_at: expires } : {}) });
        showOnce(created, `${created.name} created`);
        await list.reload();
      },
    });

    root.append(
      screenHeader('API keys', 'Keys for the widget, the SDK and scripts. The rate-limit tier is set by the operator.'),
      onceSlot,
      panel('New API key', form.el),
      list.el,
    );
    await list.load();
  },
};

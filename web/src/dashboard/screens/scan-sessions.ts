/**
 * Scanning (admins; docs/api/scanning.md): what a QR scan may do (the company's scan policy), how long a
 * scan's key lives, and the scan sessions: who scanned which code, signed in or not; any session can be
 * revoked, and its key stops working at once.
 */
import { del, get, patch } from '../api.js';
import { h, time } from '../dom.js';
import { Form } from '../form.js';
import { PagedList } from '../list.js';
import type { Screen } from '../screen.js';
import { actions, badge, button, confirmAction, notify, panel, screenHeader } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

type ScanSession = Schema<'ScanSession'>;
type ScanSettings = Schema<'ScanSettings'>;

const POLICIES = [
  { value: 'read', label: 'read: a scan shows the stock only' },
  { value: 'book', label: 'book: a scan books stock of its code’s target' },
  { value: 'staff', label: 'staff: booking needs a user to sign in inside the widget' },
];

function status(s: ScanSession): HTMLElement {
  if (s.revoked_at) return badge('revoked', 'bad');
  return s.active ? badge('active', 'ok') : badge('expired', 'warn');
}

export const screen: Screen = {
  path: 'scan-sessions',
  title: 'Scanning',
  group: 'Administration',
  adminOnly: true,
  async render({ root }) {
    const settings = await get<ScanSettings>('/api/v1/scan-settings/');
    const form = new Form({
      label: 'Scan settings',
      resetOnSuccess: false,
      fields: [
        {
          name: 'policy',
          label: 'What a scan may do',
          type: 'select',
          options: POLICIES,
          value: settings.policy,
          help: 'A code can have its own policy (QR codes API).',
        },
        {
          name: 'key_lifetime_hours',
          label: 'Scan key lifetime (hours)',
          type: 'number',
          min: 0.1,
          max: 168,
          step: 0.1,
          value: String(settings.key_lifetime_seconds / 3600),
          help: 'From 5 minutes to 7 days. Scans from now on; running sessions keep theirs.',
        },
      ],
      submitLabel: 'Save settings',
      mapPath: (path) => (path === 'key_lifetime_seconds' ? 'key_lifetime_hours' : path),
      onSubmit: async (values) => {
        await patch('/api/v1/scan-settings/', { policy: values.policy, key_lifetime_seconds: Math.round(Number(values.key_lifetime_hours) * 3600) });
        notify('Scan settings saved.');
      },
    });

    const list: PagedList<ScanSession> = new PagedList<ScanSession>({
      path: '/api/v1/scan-sessions/',
      caption: 'Scan sessions',
      empty: 'No scan sessions match.',
      filters: [{ name: 'include_ended', label: 'Show revoked and expired sessions', type: 'checkbox' }],
      columns: [
        {
          label: 'Code',
          cell: (s) => [
            h('code', null, s.code),
            h('br'),
            h('span', { class: 'muted small' }, s.target_type ? `${s.target_type.toLowerCase().replace('_', ' ')}` : 'not linked'),
          ],
        },
        { label: 'Policy', cell: (s) => s.policy },
        { label: 'Signed in', cell: (s) => (s.signed_in_user ? s.signed_in_user.username : '—') },
        { label: 'Started', cell: (s) => time(s.created_at) },
        { label: 'Expires', cell: (s) => (s.expires_at ? time(s.expires_at) : 'never') },
        {
          label: 'Usage',
          cell: (s) => [`${s.usage_count} request(s)`, h('br'), h('span', { class: 'muted small' }, 'last ', s.last_used_at ? time(s.last_used_at) : 'never')],
        },
        { label: 'Status', cell: status },
        {
          label: 'Actions',
          class: 'actions',
          cell: (s) =>
            !s.active
              ? '—'
              : actions(
                  button(
                    'Revoke',
                    async () => {
                      if (
                        !(await confirmAction(`Revoke the scan of ${s.code}?`, 'Its key stops working at once; the phone has to scan again.', 'Revoke session'))
                      )
                        return;
                      await del(`/api/v1/scan-sessions/${s.id}/`);
                      notify(`Scan session of ${s.code} revoked.`);
                      await list.reload();
                    },
                    { kind: 'danger', label: `Revoke the scan of ${s.code}` },
                  ),
                ),
        },
      ],
    });

    root.append(
      screenHeader('Scanning', 'A QR scan opens the widget with a key that reaches only what its code points at.'),
      panel('Scan settings', form.el, true),
      list.el,
    );
    await list.load();
  },
};

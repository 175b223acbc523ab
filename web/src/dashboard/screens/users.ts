/** Users of the company (admins): create, change role (admin, member, viewer), email or password, deactivate. Users are never deleted. */
import { del, patch, post } from '../api.js';
import { h, time } from '../dom.js';
import { Form, compact, formDialog, text } from '../form.js';
import { PagedList } from '../list.js';
import type { Screen } from '../screen.js';
import { actions, activeBadge, badge, button, confirmAction, notify, panel, screenHeader } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

type User = Schema<'User'>;

const ROLES = [
  { value: 'member', label: 'Member' },
  { value: 'admin', label: 'Admin (keys, channels, users)' },
  { value: 'viewer', label: 'Viewer (read-only)' },
];
const ROLE_TONES = { admin: 'info', member: 'muted', viewer: 'warn' } as const;

export const screen: Screen = {
  path: 'users',
  title: 'Users',
  group: 'Administration',
  adminOnly: true,
  async render({ root, me }) {
    root.append(screenHeader('Users', 'People who sign in to this dashboard. The company always keeps one active admin.'));

    const editUser = (u: User) =>
      formDialog(`Edit ${u.username}`, {
        fields: [
          { name: 'email', label: 'Email', type: 'email', value: u.email ?? '' },
          { name: 'role', label: 'Role', type: 'select', options: ROLES, value: u.role },
          { name: 'password', label: 'New password', type: 'password', help: 'Leave empty to keep the current one; 8–128 characters.' },
          { name: 'is_active', label: 'Active', type: 'checkbox', value: u.is_active },
        ],
        submitLabel: 'Save user',
        save: (values) =>
          patch(
            `/api/v1/users/${u.id}/`,
            compact({ email: text(values.email) ?? null, role: values.role, is_active: values.is_active, password: values.password || undefined }),
          ),
        after: async () => {
          notify(`User ${u.username} saved.`);
          await list.reload();
        },
      });

    const list: PagedList<User> = new PagedList<User>({
      path: '/api/v1/users/',
      caption: 'Users',
      empty: 'No users.',
      columns: [
        { label: 'Username', sort: 'username', cell: (u) => [h('strong', null, u.username), u.id === me.id ? ' (you)' : ''] },
        { label: 'Email', cell: (u) => u.email ?? '—', class: 'wide' },
        { label: 'Role', sort: 'role', cell: (u) => badge(u.role, ROLE_TONES[u.role]) },
        { label: 'Status', cell: (u) => activeBadge(u.is_active) },
        { label: 'Created', sort: 'created_at', cell: (u) => time(u.created_at) },
        {
          label: 'Actions',
          class: 'actions',
          cell: (u) =>
            actions(
              button('Edit', () => editUser(u), { label: `Edit ${u.username}` }),
              u.is_active
                ? button(
                    'Deactivate',
                    async () => {
                      if (!(await confirmAction(`Deactivate ${u.username}?`, 'Their sign-in and tokens stop working at once.', 'Deactivate user'))) return;
                      await del(`/api/v1/users/${u.id}/`);
                      notify(`${u.username} deactivated.`);
                      await list.reload();
                    },
                    { kind: 'danger', label: `Deactivate ${u.username}` },
                  )
                : null,
            ),
        },
      ],
    });

    const form = new Form({
      label: 'New user',
      fields: [
        { name: 'username', label: 'Username', required: true, help: '3–150 letters, digits and _ . @ + -; unique across all companies.' },
        { name: 'password', label: 'Password', type: 'password', required: true, help: '8–128 characters.' },
        { name: 'email', label: 'Email', type: 'email' },
        { name: 'role', label: 'Role', type: 'select', options: ROLES, value: 'member' },
      ],
      submitLabel: 'Create user',
      onSubmit: async (values) => {
        const created = await post<User>(
          '/api/v1/users/',
          compact({ username: text(values.username) ?? '', password: values.password, email: text(values.email), role: values.role }),
        );
        notify(`User ${created.username} created.`);
        await list.reload();
      },
    });
    root.append(panel('New user', form.el), list.el);
    await list.load();
  },
};

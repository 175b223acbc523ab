/** Locations: physical ones (warehouses, stores, shelves, vehicles; nested by parent) and the system's virtual ones. */
import { del, patch, post } from '../api.js';
import { h } from '../dom.js';
import { Form, formDialog, idempotencyKeys, text } from '../form.js';
import { ACTIVE_FILTER, PagedList } from '../list.js';
import { Location, PHYSICAL_LOCATION_TYPES, forgetLocation, locationNameCell, locationPicker } from '../model.js';
import type { Screen } from '../screen.js';
import { actions, activeBadge, badge, button, confirmAction, notify, panel, screenHeader } from '../ui.js';

function editLocation(location: Location, done: () => void): void {
  formDialog(`Edit ${location.name}`, {
    fields: [
      { name: 'name', label: 'Name', required: true, value: location.name },
      locationPicker({
        name: 'parent_id',
        label: 'Parent location',
        empty: 'None',
        only: (l) => l.type !== 'VIRTUAL' && l.id !== location.id,
        value: location.parent_id,
      }),
    ],
    submitLabel: 'Save location',
    save: (values) => patch(`/api/v1/locations/${location.id}/`, { name: text(values.name) ?? '', parent_id: values.parent_id || null }),
    after: (values) => {
      forgetLocation(location.id);
      notify(`Location ${text(values.name)} saved.`);
      done();
    },
  });
}

export const screen: Screen = {
  path: 'locations',
  title: 'Locations',
  group: 'Stock',
  async render({ root }) {
    root.append(
      screenHeader('Locations', 'Where stock is kept. Inbound and Outbound are the virtual system locations that additions come from and subtractions go to.'),
    );
    // The list pages like any other and shows each location's parent by name, read per parent id (once each)
    // as rows show them; the parent pickers search as one types and show the hierarchy of what they find. No
    // part of this screen needs the whole tree, so none is loaded.
    const parentName = locationNameCell();
    const refresh = () => list.reload();

    const list: PagedList<Location> = new PagedList<Location>({
      path: '/api/v1/locations/',
      search: 'Search name',
      caption: 'Locations',
      empty: 'No locations match.',
      filters: [
        { name: 'type', label: 'Type', type: 'select', options: [{ value: '', label: 'Any type' }, ...PHYSICAL_LOCATION_TYPES, 'VIRTUAL'] },
        ACTIVE_FILTER,
      ],
      columns: [
        { label: 'Name', sort: 'name', cell: (l) => h('strong', null, l.name), class: 'wide' },
        { label: 'Type', sort: 'type', cell: (l) => l.type },
        { label: 'Parent', cell: (l) => parentName(l.parent_id) },
        { label: 'Status', cell: (l) => [activeBadge(l.is_active), l.is_system ? [' ', badge('system', 'info')] : null] },
        {
          label: 'Actions',
          class: 'actions',
          cell: (l) =>
            l.is_system
              ? h('span', { class: 'muted' }, 'managed by the system')
              : actions(
                  button('Edit', () => editLocation(l, () => void refresh()), { label: `Edit ${l.name}` }),
                  l.is_active
                    ? button(
                        'Deactivate',
                        async () => {
                          if (!(await confirmAction(`Deactivate ${l.name}?`, 'A location that still holds stock cannot be deactivated.', 'Deactivate'))) return;
                          await del(`/api/v1/locations/${l.id}/`);
                          notify(`${l.name} deactivated.`);
                          await refresh();
                        },
                        { kind: 'danger', label: `Deactivate ${l.name}` },
                      )
                    : button(
                        'Activate',
                        async () => {
                          await patch(`/api/v1/locations/${l.id}/`, { is_active: true });
                          notify(`${l.name} activated.`);
                          await refresh();
                        },
                        { label: `Activate ${l.name}` },
                      ),
                ),
        },
      ],
    });

    const form = new Form({
      label: 'New location',
      fields: [
        { name: 'name', label: 'Name', required: true },
        { name: 'type', label: 'Type', type: 'select', options: PHYSICAL_LOCATION_TYPES, value: 'WAREHOUSE' },
        locationPicker({ name: 'parent_id', label: 'Parent location', empty: 'None' }),
      ],
      submitLabel: 'Create location',
      onSubmit: async (values) => {
        const body = { name: text(values.name) ?? '', type: values.type, ...(values.parent_id ? { parent_id: values.parent_id } : {}) };
        const created = await post<Location>('/api/v1/locations/', body, keys.options());
        keys.next();
        notify(`Location ${created.name} created.`);
        await refresh();
      },
    });
    // Names need not be unique: a retry whose outcome is unknown carries the key, so it never creates a second one.
    const keys = idempotencyKeys(form, 'location');

    root.append(panel('New location', form.el), list.el);
    await list.load();
  },
};

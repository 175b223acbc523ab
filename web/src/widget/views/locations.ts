/**
 * Locations (`#/locations`): the active physical locations and a form to create one; one location's inventory
 * (`#/locations/<id>`).
 */
import { FormProblem, guardSubmit } from '../action.js';
import type { Ctx } from '../context.js';
import { field, fill, h, option } from '../../kit/dom.js';
import { loading, showError, showSuccess } from '../notice.js';
import type { CreatedLocation, Location, LocationInventory } from '../types.js';
import { productItem } from './products.js';

const TYPES: Array<[string, string]> = [
  ['WAREHOUSE', 'Warehouse'],
  ['STORE', 'Store'],
  ['SHELF', 'Shelf'],
  ['VEHICLE', 'Vehicle'],
];
const typeName = (type: string) => TYPES.find(([t]) => t === type)?.[1] ?? type;

function createForm(ctx: Ctx, locations: Location[], onCreated: (l: Location) => Promise<void>): HTMLElement {
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: '200', autocomplete: 'off' });
  const type = h('select', { name: 'type', required: true }, ...TYPES.map(([value, label], i) => option(value, label, i === 0)));
  const parent = h('select', { name: 'parent_id' }, option('', 'None', true), ...locations.map((l) => option(l.id, l.name)));
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create location');
  const notice = h('div', { class: 'form-notice' });
  const form = h(
    'form',
    { class: 'create-location' },
    field('Name', name),
    field('Type', type),
    field('Inside (optional)', parent),
    h('div', { class: 'actions' }, submit),
  );
  guardSubmit(
    form,
    submit,
    'Creating…',
    notice,
    () => {
      const body: Record<string, unknown> = { name: name.value.trim(), type: type.value };
      if (!body.name) throw new FormProblem('Enter a name.');
      if (parent.value) body.parent_id = parent.value;
      return {
        signature: JSON.stringify(body),
        // Names need not be unique: the request carries the action's key, so a retry never creates a second one.
        send: async (options) => {
          const answer = await ctx.api.post<CreatedLocation>('create_location/', body, options);
          ctx.invalidateLocations();
          name.value = '';
          showSuccess(notice, `Location ${answer.location.name} created.`);
          ctx.announce(`Location ${answer.location.name} created.`);
          await onCreated(answer.location);
        },
      };
    },
    'location',
  );
  return h('section', { class: 'panel' }, h('h3', {}, 'New location'), form, notice);
}

export async function locationsView(ctx: Ctx, view: HTMLElement): Promise<void> {
  const heading = h('h2', { tabindex: '-1' }, 'Locations');
  const listBox = h('section', { class: 'panel' }, h('h3', {}, 'Active locations'), loading());
  const formBox = h('div');
  view.append(heading, h('div', { class: 'product-grid' }, listBox, formBox));

  const render = async (highlight?: string) => {
    let locations: Location[];
    try {
      locations = await ctx.locations();
    } catch (err) {
      const box = h('div');
      showError(box, err);
      fill(listBox, h('h3', {}, 'Active locations'), box);
      return;
    }
    const byId = new Map(locations.map((l) => [l.id, l]));
    fill(
      listBox,
      h('h3', {}, `Active locations (${locations.length})`),
      locations.length === 0
        ? h('p', { class: 'muted' }, 'No locations yet: create the first one.')
        : h(
            'ul',
            { class: 'location-list' },
            ...locations.map((l) =>
              h(
                'li',
                { class: l.id === highlight ? 'highlight' : null },
                h('a', { href: `#/locations/${l.id}` }, h('span', { class: 'name' }, l.name), h('span', { class: 'type' }, typeName(l.type))),
                l.parent_id && byId.has(l.parent_id) ? h('span', { class: 'muted parent' }, `in ${byId.get(l.parent_id)!.name}`) : null,
              ),
            ),
          ),
    );
    if (!formBox.firstChild) formBox.appendChild(createForm(ctx, locations, (created) => render(created.id)));
  };
  await render();
}

export async function locationView(ctx: Ctx, view: HTMLElement, [id]: string[]): Promise<void> {
  const heading = h('h2', { tabindex: '-1' }, 'Location');
  const status = loading();
  view.append(h('p', { class: 'back' }, h('a', { href: '#/locations' }, '← All locations')), heading, status);
  let answer: LocationInventory;
  try {
    answer = await ctx.api.get<LocationInventory>('location_inventory/', { location_id: id });
  } catch (err) {
    showError(status, err);
    return;
  }
  heading.textContent = answer.location.name;
  status.replaceWith(
    h('p', { class: 'meta' }, typeName(answer.location.type)),
    answer.products.length === 0 ? h('p', { class: 'muted' }, 'No stock here.') : h('ul', { class: 'product-list' }, ...answer.products.map(productItem)),
  );
}

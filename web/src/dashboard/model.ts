/** The API's records as the dashboard reads them (docs/api/), and the pickers built from them. */
import { type Page, type Query, get } from './api.js';
import { h } from './dom.js';
import type { FieldSpec, Option } from './form.js';
import type { Schema } from '../kit/api-types.js';

export type Product = Schema<'Product'>;
export type Profile = Product['profile'];
export type Location = Schema<'Location'>;
/** The signed-in user (`GET /api/v1/users/me/`). */
export type Me = Schema<'User'>;
export const PROFILES: Profile[] = ['STANDARD', 'SERIALIZED', 'BATCH', 'DIMENSIONAL'];
export const ENGINE_OF: Record<Profile, string> = { STANDARD: 'counter', SERIALIZED: 'serialized', BATCH: 'batch', DIMENSIONAL: 'dimensional' };
export const ENGINE_TYPES = ['counter', 'serialized', 'batch', 'dimensional'];
export const DIMENSIONAL_UNITS = ['mm', 'cm', 'm', 'km', 'in', 'ft', 'yd', 'cm2', 'm2', 'ft2', 'cm3', 'm3', 'ml', 'l', 'g', 'kg', 't', 'oz', 'lb'];
export const PHYSICAL_LOCATION_TYPES = ['WAREHOUSE', 'STORE', 'SHELF', 'VEHICLE'];
export const SEVERITIES = ['INFO', 'WARNING', 'CRITICAL'];
export const EVENT_TYPES = ['THRESHOLD', 'DATE_OFFSET', 'TEST'];

export const productLabel = (p: Pick<Product, 'sku' | 'name'>) => `${p.sku} — ${p.name}`;

export function productOptions(products: Product[], empty?: string, only?: (p: Product) => boolean): Option[] {
  const chosen = products.filter((p) => (only ? only(p) : true));
  return [
    ...(empty !== undefined ? [{ value: '', label: empty }] : []),
    ...chosen.map((p) => ({ value: p.id, label: productLabel(p) + (p.is_active ? '' : ' (inactive)') })),
  ];
}

export const isPhysical = (l: Location) => l.type !== 'VIRTUAL';

/**
 * Location options as a tree: each location under its parent, indented one step per level, siblings by name.
 * A location whose parent is not offered starts a tree of its own.
 */
export function locationOptions(locations: Location[], empty?: string, only: (l: Location) => boolean = (l) => isPhysical(l) && l.is_active): Option[] {
  const offered = locations.filter(only);
  const ids = new Set(offered.map((l) => l.id));
  const children = new Map<string | null, Location[]>();
  for (const l of offered) {
    const parent = l.parent_id && ids.has(l.parent_id) ? l.parent_id : null;
    children.set(parent, [...(children.get(parent) ?? []), l]);
  }
  const out: Option[] = empty !== undefined ? [{ value: '', label: empty }] : [];
  const seen = new Set<string>();
  const visit = (parent: string | null, depth: number) => {
    const level = [...(children.get(parent) ?? [])].sort((a, b) => a.name.localeCompare(b.name));
    for (const l of level) {
      if (seen.has(l.id)) continue;
      seen.add(l.id);
      // Non-breaking spaces: a <select> keeps them, so the hierarchy shows in the closed and the open picker.
      out.push({ value: l.id, label: `${'\u00a0\u00a0\u00a0'.repeat(depth)}${depth ? '└ ' : ''}${l.name} (${l.type.toLowerCase()})` });
      visit(l.id, depth + 1);
    }
  };
  visit(null, 0);
  return out;
}

/** `id → label` for showing ids of a list by name (people never read an id: one not loaded shows `unknown`). */
export function names<T extends { id: string }>(records: T[], label: (r: T) => string): (id: string | null | undefined) => string {
  const map = new Map(records.map((r) => [r.id, label(r)]));
  return (id) => (id ? (map.get(id) ?? 'unknown') : '—');
}

/** How many matches a picker's search offers at once. */
const LOOKUP_SIZE = 50;

// ------------------------------------------------------------------------- records by id, asked once each

/** Records read by id (or seen in a picker's answer), per path: a list shows names without preloading them all. */
const byId = new Map<string, Map<string, Promise<unknown>>>();

function remember<T extends { id: string }>(path: string, records: T[]): void {
  const cache = byId.get(path) ?? new Map<string, Promise<unknown>>();
  byId.set(path, cache);
  for (const r of records) cache.set(r.id, Promise.resolve(r));
}

/** One record of `path` by id, asked at most once per page load; null when it cannot be read. */
function recordById<T>(path: string, id: string): Promise<T | null> {
  const cache = byId.get(path) ?? new Map<string, Promise<unknown>>();
  byId.set(path, cache);
  let found = cache.get(id) as Promise<T | null> | undefined;
  if (!found) {
    found = get<T>(`${path}${encodeURIComponent(id)}/`).catch(() => null);
    cache.set(id, found);
  }
  return found;
}

const PRODUCTS = '/api/v1/product-models/';
const LOCATIONS = '/api/v1/locations/';

export const productById = (id: string) => recordById<Product>(PRODUCTS, id);
export const locationById = (id: string) => recordById<Location>(LOCATIONS, id);

/** Forgets what was read of a location (after it was renamed or moved), so that its name is read again. */
export const forgetLocation = (id: string) => byId.get(LOCATIONS)?.delete(id);

/** A record's name in a list cell: the short id at once, the name as soon as it is read (once per id). */
function nameCell<T>(read: (id: string) => Promise<T | null>, label: (r: T) => string) {
  return (id: string | null | undefined): HTMLElement | string => {
    if (!id) return '—';
    const el = h('span', { class: 'ref', 'data-id': id }, id.slice(0, 8));
    void read(id).then((r) => {
      if (r) el.textContent = label(r);
    });
    return el;
  };
}

/** `id → name` cells for products and locations, read as the rows show them. */
export const productNameCell = (label: (p: Product) => string = (p) => p.sku) => nameCell(productById, label);
export const locationNameCell = (label: (l: Location) => string = (l) => l.name) => nameCell(locationById, label);
/** `id → name` cells for records of any other path that answers `GET <path><id>/` (channels, rules, …). */
export const recordNameCell = <T>(path: string, label: (r: T) => string) => nameCell((id: string) => recordById<T>(path, id), label);

// -------------------------------------------------------------------------------- pickers that search

/** A product picker's `lookup`: the products whose SKU or name holds the text, asked of the API. */
export const productLookup =
  (empty?: string, only?: (p: Product) => boolean, query: Query = {}, current?: string) =>
  async (text: string): Promise<Option[]> => {
    const found = (await get<Page<Product>>(PRODUCTS, { ...query, search: text, page_size: LOOKUP_SIZE, ordering: 'name' })).results;
    remember(PRODUCTS, found);
    if (current && !found.some((p) => p.id === current)) {
      const chosen = await productById(current);
      if (chosen) found.unshift(chosen);
    }
    return productOptions(found, empty, only);
  };

/**
 * The locations of `found` with their ancestors, read by id (cached) level by level, so that a search's
 * answers still show where each location is.
 */
async function withAncestors(found: Location[]): Promise<Location[]> {
  const all = new Map(found.map((l) => [l.id, l]));
  for (let depth = 0; depth < 10; depth++) {
    const missing = [...new Set([...all.values()].map((l) => l.parent_id).filter((id): id is string => !!id && !all.has(id)))];
    if (!missing.length) break;
    for (const parent of await Promise.all(missing.map(locationById))) if (parent) all.set(parent.id, parent);
    if (missing.every((id) => !all.has(id))) break;
  }
  return [...all.values()];
}

/**
 * A location picker's `lookup`: the locations whose name holds the text, shown in their hierarchy (each under
 * its parent, the parents read too).
 */
export const locationLookup =
  (empty?: string, only?: (l: Location) => boolean, query: Query = {}, current?: string) =>
  async (text: string): Promise<Option[]> => {
    const found = (await get<Page<Location>>(LOCATIONS, { ...query, search: text, page_size: LOOKUP_SIZE, ordering: 'name' })).results;
    remember(LOCATIONS, found);
    if (current && !found.some((l) => l.id === current)) {
      const chosen = await locationById(current);
      if (chosen) found.unshift(chosen);
    }
    return locationOptions(await withAncestors(found), empty, only);
  };

export interface PickerOptions<T> {
  name: string;
  label: string;
  /** The "none" option's text (a filter's "All products"); absent: no such option. */
  empty?: string;
  /** Which answers to offer (e.g. only active ones). */
  only?: (record: T) => boolean;
  /** Query parameters that narrow what the API answers (e.g. `{profile: 'BATCH'}`), so a page holds only offerable records. */
  query?: Query;
  value?: string | null;
  required?: boolean;
  help?: string;
}

/** A select whose options the API answers as one types (docs/api/ordering-and-search.md), never all products at once. */
export function productPicker(o: PickerOptions<Product>): FieldSpec {
  return remotePicker(o, productLookup(o.empty, o.only, o.query, o.value ?? undefined));
}

/** A location select that searches as one types and shows the hierarchy of what it finds. */
export function locationPicker(o: PickerOptions<Location>): FieldSpec {
  return remotePicker(o, locationLookup(o.empty, o.only, o.query, o.value ?? undefined));
}

function remotePicker<T>(o: PickerOptions<T>, lookup: (text: string) => Promise<Option[]>): FieldSpec {
  // Until the first answer: the "none" option, and the value chosen (named once it is read).
  const options: Option[] = [...(o.empty !== undefined ? [{ value: '', label: o.empty }] : []), ...(o.value ? [{ value: o.value, label: '…' }] : [])];
  return { name: o.name, label: o.label, type: 'select', required: o.required, help: o.help, value: o.value ?? '', options, lookup, remote: true };
}

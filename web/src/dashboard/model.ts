/** The API's records as the dashboard reads them (docs/api/), and the pickers built from them. */
import { type Page, get, getAll } from './api.js';
import { Option } from './form.js';
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

/** Every product of the company (active ones first), for pickers and names. */
export async function loadProducts(): Promise<Product[]> {
  const all = await getAll<Product>('/api/v1/product-models/');
  return all.sort((a, b) => Number(b.is_active) - Number(a.is_active));
}

export async function loadLocations(): Promise<Location[]> {
  return getAll<Location>('/api/v1/locations/');
}

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

/** A product picker's `lookup`: the products whose SKU or name holds the text, asked of the API. */
export const productLookup =
  (empty?: string, only?: (p: Product) => boolean) =>
  async (text: string): Promise<Option[]> =>
    productOptions((await get<Page<Product>>('/api/v1/product-models/', { search: text, page_size: LOOKUP_SIZE })).results, empty, only);

/** A location picker's `lookup`: the locations whose name holds the text (with their parents, when offered). */
export const locationLookup =
  (empty?: string, only?: (l: Location) => boolean) =>
  async (text: string): Promise<Option[]> =>
    locationOptions((await get<Page<Location>>('/api/v1/locations/', { search: text, page_size: LOOKUP_SIZE })).results, empty, only);

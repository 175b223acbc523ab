/** The API's records as the dashboard reads them (docs/api/), and the pickers built from them. */
import { getAll } from './api.js';
import { Option } from './form.js';
import type { Schema } from '../shared/api-types.js';

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

export function locationOptions(locations: Location[], empty?: string, only: (l: Location) => boolean = (l) => isPhysical(l) && l.is_active): Option[] {
  return [...(empty !== undefined ? [{ value: '', label: empty }] : []), ...locations.filter(only).map((l) => ({ value: l.id, label: `${l.name} (${l.type.toLowerCase()})` }))];
}

/** `id → label` for showing ids of a list by name. */
export function names<T extends { id: string }>(records: T[], label: (r: T) => string): (id: string | null | undefined) => string {
  const map = new Map(records.map((r) => [r.id, label(r)]));
  return (id) => (id ? (map.get(id) ?? id.slice(0, 8)) : '—');
}

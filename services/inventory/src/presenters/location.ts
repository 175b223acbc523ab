import type { Location } from '@pi/common';

type LocationRow = Pick<Location, 'id' | 'name' | 'type' | 'parentId' | 'systemRole' | 'isActive'> & { createdAt?: Date };

export function presentLocation(l: LocationRow) {
  return {
    id: l.id,
    name: l.name,
    type: l.type,
    parent_id: l.parentId,
    is_active: l.isActive,
    is_system: l.systemRole !== null,
    created_at: l.createdAt ?? null,
  };
}

/** The widget sees only physical, active locations; it needs no audit fields. */
export function presentWidgetLocation(l: LocationRow) {
  return { id: l.id, name: l.name, type: l.type, parent_id: l.parentId };
}

import Joi from 'joi';
import { LOCATION_TYPES, PHYSICAL_LOCATION_TYPES, type Location } from '@pi/common';
import { timestamp, uuid } from './schemas';

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

/** The answer schema of `presentLocation` (OpenAPI). */
export const locationSchema = Joi.object({
  id: uuid.required(),
  name: Joi.string().required(),
  type: Joi.string()
    .valid(...LOCATION_TYPES)
    .required(),
  parent_id: uuid.allow(null).required(),
  is_active: Joi.boolean().required(),
  is_system: Joi.boolean().required().description('The VIRTUAL `Inbound` and `Outbound` locations of the ledger.'),
  created_at: timestamp.required(),
}).id('Location');

/** The answer schema of `presentWidgetLocation` (OpenAPI). */
export const widgetLocationSchema = Joi.object({
  id: uuid.required(),
  name: Joi.string().required(),
  type: Joi.string()
    .valid(...PHYSICAL_LOCATION_TYPES)
    .required(),
  parent_id: uuid.allow(null).required(),
}).id('WidgetLocation');

/** The OpenAPI operations of /api/v1/locations/ (router.ts). */
import { operations, pageSchema, schemas } from '@pi/common';
import { locationSchema } from '../../presenters/location';
import { createLocationBody, listLocationsQuery, updateLocationBody } from './schema';

const base = '/api/v1/locations';
const tag = 'locations';
const params = schemas.idParams;

export const locationPageSchema = pageSchema(locationSchema, 'LocationPage');

const SYSTEM = 'The VIRTUAL system locations `Inbound` and `Outbound` answer 409 `system_location` to changes.';

export const locationOperations = operations(
  {
    method: 'get',
    path: `${base}/`,
    operationId: 'listLocations',
    tag,
    summary: 'List locations',
    description: 'All locations of the company, physical and VIRTUAL.',
    security: 'bearer',
    request: { query: listLocationsQuery },
    responses: { 200: { description: 'One page of locations.', schema: locationPageSchema } },
  },
  {
    method: 'post',
    path: `${base}/`,
    operationId: 'createLocation',
    tag,
    summary: 'Create a physical location',
    description: 'The parent, if any, must be a physical location of the company.',
    security: 'bearer',
    request: { body: createLocationBody },
    responses: { 201: { description: 'The location created.', schema: locationSchema } },
    errors: [404],
  },
  {
    method: 'get',
    path: `${base}/{id}/`,
    operationId: 'getLocation',
    tag,
    summary: 'Get a location',
    security: 'bearer',
    request: { params },
    responses: { 200: { description: 'The location.', schema: locationSchema } },
  },
  {
    method: 'patch',
    path: `${base}/{id}/`,
    operationId: 'updateLocation',
    tag,
    summary: 'Change fields of a location',
    description:
      `A location cannot become its own ancestor. Deactivating one that still holds stock answers 409 \`location_has_stock\`. ${SYSTEM}`,
    security: 'bearer',
    request: { params, body: updateLocationBody },
    responses: { 200: { description: 'The location as changed.', schema: locationSchema } },
    errors: [409],
  },
  {
    method: 'delete',
    path: `${base}/{id}/`,
    operationId: 'deactivateLocation',
    tag,
    summary: 'Deactivate a location',
    description:
      `Locations are deactivated, never deleted: the ledger keeps referring to them. One that still holds stock answers 409 \`location_has_stock\`. ${SYSTEM}`,
    security: 'bearer',
    request: { params },
    responses: { 204: { description: 'Deactivated.' } },
    errors: [409],
  },
);

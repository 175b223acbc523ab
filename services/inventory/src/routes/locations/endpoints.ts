/** /api/v1/locations/: the company's physical and virtual locations (dashboard, bearer token). */
import Joi from 'joi';
import { buildPage, endpoints, pageSchema, reply, schemas, type Call } from '@pi/common';
import type { InventoryContext } from '../../context';
import {
  createLocation,
  getLocation,
  listLocations,
  updateLocation,
  type LocationChanges,
  type LocationFilters,
  type NewLocation,
} from '../../commands/locations';
import { importLocations } from '../../commands/spreadsheet-import';
import { csvBody, csvText } from '../../http/csv-body';
import { locationSchema, presentLocation } from '../../presenters/location';
import { MAX_IMPORT_ROWS, IMPORT_RATE_LIMITS } from '../product-models/schema';
import { keyedBody, requestOrigin } from '../../http/booking-request';
import { REPLAYED_HEADER } from '../movements/descriptions';
import { createLocationBody, importLocationsQuery, listLocationsQuery, updateLocationBody } from './schema';

export const importedLocationsSchema = Joi.object({
  imported: Joi.number().integer().min(1).required(),
  dry_run: Joi.boolean().valid(false).required(),
  locations: Joi.array().items(locationSchema).required().description('The locations created, in the order of the rows.'),
}).id('LocationImport');

export const locationImportDryRunSchema = Joi.object({
  imported: Joi.number().valid(0).required(),
  would_import: Joi.number().integer().min(1).required(),
  dry_run: Joi.boolean().valid(true).required(),
}).id('LocationImportDryRun');

const base = '/api/v1/locations';
const tag = 'locations';
const params = schemas.idParams;

export const locationPageSchema = pageSchema(locationSchema, 'LocationPage');

const SYSTEM = 'The VIRTUAL system locations `Inbound` and `Outbound` answer 409 `system_location` to changes.';

export const locationEndpoints = endpoints<InventoryContext>(
  // Before `{id}/`, which would take it.
  {
    method: 'post',
    path: `${base}/import/`,
    operationId: 'importLocations',
    rateLimits: IMPORT_RATE_LIMITS,
    tag,
    summary: 'Import locations from CSV',
    description:
      `Created in the order of the file, all or nothing, in one transaction, at most ${MAX_IMPORT_ROWS} rows. If any row fails the ` +
      'answer is 400 `import_failed` with `details.rows: [{row, field, message}]` naming every problem by row (from 1) and column, and ' +
      'nothing is created. With `dry_run=true` the rows are checked and nothing is written. Members and admins only; each location ' +
      "created is in the audit log. Names need not be unique, so a file imported twice creates its locations twice, unless the second carries the first one's `Idempotency-Key`.",
    security: 'bearer',
    idempotencyKey: true,
    request: {
      query: importLocationsQuery,
      otherBodyTypes: {
        'text/csv':
          'A CSV file (up to 5 MB) with a header row of `name, type, parent` (any order and case; `name` and `type` required). `type` is ' +
          'WAREHOUSE, STORE, SHELF or VEHICLE. `parent` is the name (ignoring case) of a location the company has or an earlier row ' +
          'creates; a name that means more than one location is refused.',
      },
    },
    responses: {
      200: { description: '`dry_run=true`: every row is valid; nothing was written.', schema: locationImportDryRunSchema },
      201: { description: 'Every row was imported.', schema: importedLocationsSchema, headers: REPLAYED_HEADER },
    },
    errors: [415],
    before: [csvBody()],
    handle: async (ctx, { query, identity, req, res }: Call<{ dry_run: boolean }>) => {
      const answer = await importLocations(ctx, identity, csvText(req), query.dry_run, requestOrigin(req));
      return answer.body.dry_run ? answer.body : reply(201, keyedBody(res, answer));
    },
  },
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
    handle: async (ctx, { query, identity, req }: Call<LocationFilters>) => {
      const { rows, count } = await listLocations(ctx, identity, query);
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentLocation));
    },
  },
  {
    method: 'post',
    path: `${base}/`,
    operationId: 'createLocation',
    tag,
    summary: 'Create a physical location',
    description: 'The parent, if any, must be a physical location of the company.',
    security: 'bearer',
    idempotencyKey: true,
    request: { body: createLocationBody },
    responses: { 201: { description: 'The location created.', schema: locationSchema, headers: REPLAYED_HEADER } },
    errors: [404],
    handle: async (ctx, { body, identity, req, res }: Call<unknown, NewLocation>) =>
      keyedBody(res, await createLocation(ctx, identity, body, requestOrigin(req), presentLocation)),
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
    handle: async (ctx, { params, identity }: Call) => presentLocation(await getLocation(ctx, identity, params.id)),
  },
  {
    method: 'patch',
    path: `${base}/{id}/`,
    operationId: 'updateLocation',
    tag,
    summary: 'Change fields of a location',
    description: `A location cannot become its own ancestor. Deactivating one that still holds stock answers 409 \`location_has_stock\`. ${SYSTEM}`,
    security: 'bearer',
    request: { params, body: updateLocationBody },
    responses: { 200: { description: 'The location as changed.', schema: locationSchema } },
    errors: [409],
    handle: async (ctx, { params, body, identity }: Call<unknown, LocationChanges>) => presentLocation(await updateLocation(ctx, identity, params.id, body)),
  },
  {
    method: 'delete',
    path: `${base}/{id}/`,
    operationId: 'deactivateLocation',
    tag,
    summary: 'Deactivate a location',
    description: `Locations are deactivated, never deleted: the ledger keeps referring to them. One that still holds stock answers 409 \`location_has_stock\`. ${SYSTEM}`,
    security: 'bearer',
    request: { params },
    responses: { 204: { description: 'Deactivated.' } },
    errors: [409],
    handle: async (ctx, { params, identity }: Call) => {
      await updateLocation(ctx, identity, params.id, { is_active: false }, 'deactivate');
    },
  },
);

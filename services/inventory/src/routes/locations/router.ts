/** /api/v1/locations/: the company's physical and virtual locations (dashboard, bearer token). */
import { Router } from 'express';
import { buildPage, idParam, schemas, validate } from '@pi/common';
import type { InventoryContext } from '../../context';
import { createLocation, getLocation, listLocations, updateLocation, type NewLocation, type LocationChanges } from '../../commands/locations';
import { importLocations } from '../../commands/spreadsheet-import';
import { csvBody, csvText } from '../../http/csv-body';
import { presentLocation } from '../../presenters/location';
import { createLocationBody, importLocationsQuery, listLocationsQuery, updateLocationBody } from './schema';
import type { LocationFilters } from '../../commands/locations';

export function locationsRouter(ctx: InventoryContext): Router {
  const { config } = ctx;
  const router = Router();
  const base = '/api/v1/locations';

  router.get(`${base}/`, validate({ query: listLocationsQuery }), async (req, res) => {
    const filters = req.query as unknown as LocationFilters;
    const { rows, count } = await listLocations(ctx, req.identity!, filters);
    res.json(buildPage(req, config.PUBLIC_BASE_URL, filters, count, rows.map(presentLocation)));
  });

  router.post(`${base}/`, validate({ body: createLocationBody }), async (req, res) => {
    const body = req.body as NewLocation;
    res.status(201).json(presentLocation(await createLocation(ctx, req.identity!, body)));
  });

  /** CSV `name, type, parent`: all or nothing, with a dry run. Routed before `{id}/`, which would claim it. */
  router.post(`${base}/import/`, csvBody(), validate({ query: importLocationsQuery }), async (req, res) => {
    const { dry_run: dryRun } = req.query as unknown as { dry_run: boolean };
    const result = await importLocations(ctx, req.identity!, csvText(req), dryRun);
    if (result.dry_run) res.status(200).json(result);
    else res.status(201).json({ imported: result.imported, dry_run: false, locations: result.locations.map(presentLocation) });
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentLocation(await getLocation(ctx, req.identity!, idParam(req))));
  });

  router.patch(`${base}/:id/`, validate({ params: schemas.idParams, body: updateLocationBody }), async (req, res) => {
    const body = req.body as LocationChanges;
    res.json(presentLocation(await updateLocation(ctx, req.identity!, idParam(req), body)));
  });

  /** Locations are deactivated, never deleted: the ledger keeps referring to them. */
  router.delete(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    await updateLocation(ctx, req.identity!, idParam(req), { is_active: false }, 'deactivate');
    res.status(204).end();
  });
  return router;
}

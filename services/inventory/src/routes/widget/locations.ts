/** Widget (API key): `locations/` lists active physical locations; `create_location/` adds one (never for a QR scan's key). */
import { Router } from 'express';
import { validate } from '@pi/common';
import { createLocation, listWidgetLocations, type NewLocation } from '../../commands/locations';
import type { InventoryContext } from '../../context';
import { noScans } from '../../http/scan-scope';
import { presentWidgetLocation } from '../../presenters/location';
import { createLocationBody, noQuery } from './schema';

export function widgetLocationsRouter(ctx: InventoryContext): Router {
  const router = Router();
  router.get('/api/v1/widget/locations/', validate({ query: noQuery }), async (req, res) => {
    const rows = await listWidgetLocations(ctx, req.identity!);
    res.json({ locations: rows.map(presentWidgetLocation) });
  });
  router.post('/api/v1/widget/create_location/', noScans, validate({ body: createLocationBody }), async (req, res) => {
    const body = req.body as NewLocation;
    const location = await createLocation(ctx, req.identity!, body);
    res.status(201).json({ success: true, location: presentWidgetLocation(location) });
  });
  return router;
}

/** Widget (API key): `locations/` lists active physical locations; `create_location/` adds one. */
import { Router } from 'express';
import Joi from 'joi';
import { PHYSICAL_LOCATION_TYPES, schemas, validate } from '@pi/common';
import { createLocation, listWidgetLocations } from '../../commands/locations';
import type { InventoryContext } from '../../context';
import { presentWidgetLocation } from '../../presenters/location';

const createBody = Joi.object({
  name: Joi.string().trim().min(1).max(200).required(),
  type: Joi.string().valid(...PHYSICAL_LOCATION_TYPES).required(),
  parent_id: schemas.uuid.allow(null),
});

export function widgetLocationsRouter({ sequelize }: InventoryContext): Router {
  const router = Router();
  router.get('/api/v1/widget/locations/', validate({ query: Joi.object({}) }), async (req, res) => {
    const rows = await listWidgetLocations(req.identity!);
    res.json({ locations: rows.map(presentWidgetLocation) });
  });
  router.post('/api/v1/widget/create_location/', validate({ body: createBody }), async (req, res) => {
    const location = await createLocation(sequelize, req.identity!, req.body);
    res.status(201).json({ success: true, location: presentWidgetLocation(location) });
  });
  return router;
}

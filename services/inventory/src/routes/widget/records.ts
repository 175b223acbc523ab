/**
 * Widget (API key) reads of records: `items/` (active serialized items of a product), `batches/` (a product's
 * batches with stock left, anywhere or at one location: the booking form's batch picker), `location_inventory/` (what one physical location holds) and `work_orders/` (the
 * open ones). Each list is one SQL statement after the ownership checks of the ids it names (ownedFilters).
 * VIRTUAL locations do not exist for the widget: naming one answers 404. A QR scan's key names its target's
 * product only (403 before anything else is looked at) and sees only that product at a location.
 */
import { Router } from 'express';
import { ID_OWNERS, Identity, Location, NotFoundError, findOwned, ownedFilters, scanProduct, validate } from '@pi/common';
import type { InventoryContext } from '../../context';
import { scanReachesProductIn } from '../../http/scan-scope';
import { LocationStockRow, activeItems, stockAtLocation, stockedBatches } from '../../commands/stock-reads';
import { listOpenWorkOrders } from '../../commands/work-orders';
import { stockDisplay, toNumber } from '../../engine/quantity';
import { presentWidgetBatch } from '../../presenters/batch';
import { presentWidgetItem } from '../../presenters/item';
import { presentWidgetWorkOrder } from '../../presenters/work-order';
import { batchesQuery, itemsQuery, locationInventoryQuery, noQuery } from './schema';

/** A physical location of the caller's company: another company's is 403, a VIRTUAL one 404 (as if absent). */
async function physicalLocation(identity: Identity, id: string): Promise<Location> {
  const location = await findOwned(Location, id, identity.companyId, { what: 'Location' });
  if (location.type === 'VIRTUAL') throw new NotFoundError('Location not found.');
  return location;
}

interface RecordsQuery {
  product_id: string;
  location_id?: string;
}

/** A product held at the location of `location_inventory/`. */
function presentLocationProduct(p: LocationStockRow) {
  return { id: p.id, sku: p.sku, name: p.name, quantity: toNumber(p.quantity), stock_display: stockDisplay(p.quantity, p.decimals, p.unit) };
}

export function widgetRecordsRouter(ctx: InventoryContext): Router {
  const router = Router();

  router.get(
    '/api/v1/widget/items/',
    validate({ query: itemsQuery }),
    scanReachesProductIn('query'),
    ownedFilters({ product_id: ID_OWNERS.product, location_id: ID_OWNERS.location }),
    async (req, res) => {
      const { product_id, location_id } = req.query as unknown as RecordsQuery;
      if (location_id) await physicalLocation(req.identity!, location_id);
      const rows = await activeItems(ctx, req.identity!.companyId, product_id, location_id);
      res.json({ items: rows.map(presentWidgetItem) });
    },
  );

  router.get(
    '/api/v1/widget/batches/',
    validate({ query: batchesQuery }),
    scanReachesProductIn('query'),
    ownedFilters({ product_id: ID_OWNERS.product, location_id: ID_OWNERS.location }),
    async (req, res) => {
      const { product_id, location_id } = req.query as unknown as RecordsQuery;
      if (location_id) await physicalLocation(req.identity!, location_id);
      const rows = await stockedBatches(ctx, req.identity!.companyId, product_id, location_id);
      res.json({ batches: rows.map(presentWidgetBatch) });
    },
  );

  router.get(
    '/api/v1/widget/location_inventory/',
    validate({ query: locationInventoryQuery }),
    ownedFilters({ location_id: ID_OWNERS.location }),
    async (req, res) => {
      const { location_id } = req.query as unknown as Required<Pick<RecordsQuery, 'location_id'>>;
      const location = await physicalLocation(req.identity!, location_id);
      const rows = await stockAtLocation(ctx, req.identity!.companyId, location.id, scanProduct(req.identity!));
      res.json({
        location: { id: location.id, name: location.name, type: location.type },
        products: rows.map(presentLocationProduct),
      });
    },
  );

  router.get('/api/v1/widget/work_orders/', validate({ query: noQuery }), async (req, res) => {
    const rows = await listOpenWorkOrders(ctx, req.identity!);
    res.json({ work_orders: rows.map(presentWidgetWorkOrder) });
  });
  return router;
}

/**
 * Widget (API key) reads of records, and its locations: `items/` (active serialized items of a product), `batches/`
 * (a product's batches with stock left, anywhere or at one location: the booking form's batch picker),
 * `locations/` (active physical locations), `create_location/` (never for a QR scan's key), `location_inventory/`
 * (what one physical location holds) and `work_orders/` (the open ones). Each list is one SQL statement after the
 * ownership checks of the ids it names (ownedFilters). VIRTUAL locations do not exist for the widget: naming one
 * answers 404. A QR scan's key names its target's product only (403 before anything else is looked at) and sees
 * only that product at a location.
 */
import { ID_OWNERS, Identity, Location, NotFoundError, endpoints, findOwned, scanProduct, type Call } from '@pi/common';
import type { InventoryContext } from '../../context';
import { createLocation, listWidgetLocations, type NewLocation } from '../../commands/locations';
import { LocationStockRow, activeItems, stockAtLocation, stockedBatches } from '../../commands/stock-reads';
import { listOpenWorkOrders } from '../../commands/work-orders';
import { stockDisplay, toNumber } from '../../engine/quantity';
import { noScans, scanReachesProductIn } from '../../http/scan-scope';
import { presentWidgetBatch } from '../../presenters/batch';
import { presentWidgetItem } from '../../presenters/item';
import { presentWidgetLocation } from '../../presenters/location';
import { presentWidgetWorkOrder } from '../../presenters/work-order';
import { keyedBody, requestOrigin } from '../../http/booking-request';
import { REPLAYED_HEADER } from '../movements/descriptions';
import {
  widgetBatchListSchema,
  widgetCreatedLocationSchema,
  widgetItemListSchema,
  widgetLocationInventorySchema,
  widgetLocationListSchema,
  widgetWorkOrderListSchema,
} from './responses';
import { IDS, SCAN, WIDGET_BASE as base, batchesQuery, createLocationBody, itemsQuery, locationInventoryQuery, noQuery } from './schema';

const tag = 'widget';

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

/** The product a scan names is checked before the owned filters look any id up. */
const productAndLocation = { product_id: ID_OWNERS.product, location_id: ID_OWNERS.location };

export const widgetRecordEndpoints = endpoints<InventoryContext>(
  {
    method: 'get',
    path: `${base}/items/`,
    operationId: 'widgetListItems',
    tag,
    summary: "A product's active serialized items",
    description: `By serial number, optionally at one physical location. ${IDS} ${SCAN}`,
    security: 'api_key',
    request: { query: itemsQuery },
    responses: { 200: { description: 'The active items.', schema: widgetItemListSchema } },
    errors: [404],
    afterValidation: [scanReachesProductIn('query')],
    ownedFilters: productAndLocation,
    handle: async (ctx, { query, identity }: Call<RecordsQuery>) => {
      if (query.location_id) await physicalLocation(identity, query.location_id);
      const rows = await activeItems(ctx, identity, query.product_id, query.location_id);
      return { items: rows.map(presentWidgetItem) };
    },
  },
  {
    method: 'get',
    path: `${base}/batches/`,
    operationId: 'widgetListBatches',
    tag,
    summary: "A product's batches with stock left",
    description:
      'Earliest expiry first, undated last. With `location_id`, only the batches with stock at that location, and `quantity` is the ' +
      `quantity there (what a subtraction or transfer from there can take). ${IDS} ${SCAN}`,
    security: 'api_key',
    request: { query: batchesQuery },
    responses: { 200: { description: 'The batches with stock.', schema: widgetBatchListSchema } },
    errors: [404],
    afterValidation: [scanReachesProductIn('query')],
    ownedFilters: productAndLocation,
    handle: async (ctx, { query, identity }: Call<RecordsQuery>) => {
      if (query.location_id) await physicalLocation(identity, query.location_id);
      const rows = await stockedBatches(ctx, identity, query.product_id, query.location_id);
      return { batches: rows.map(presentWidgetBatch) };
    },
  },
  {
    method: 'get',
    path: `${base}/locations/`,
    operationId: 'widgetListLocations',
    tag,
    summary: 'Active physical locations',
    description: 'By name; VIRTUAL locations never appear.',
    security: 'api_key',
    request: { query: noQuery },
    responses: { 200: { description: 'The locations.', schema: widgetLocationListSchema } },
    handle: async (ctx, { identity }: Call) => ({ locations: (await listWidgetLocations(ctx, identity)).map(presentWidgetLocation) }),
  },
  {
    method: 'post',
    path: `${base}/create_location/`,
    operationId: 'widgetCreateLocation',
    tag,
    summary: 'Create a physical location',
    description: "The parent, if any, must be a physical location of the company. A QR scan's key answers 403 `access_denied`.",
    security: 'api_key',
    idempotencyKey: true,
    request: { body: createLocationBody },
    responses: { 201: { description: 'The location created.', schema: widgetCreatedLocationSchema, headers: REPLAYED_HEADER } },
    errors: [404],
    before: [noScans],
    handle: async (ctx, { body, identity, req, res }: Call<unknown, NewLocation>) =>
      keyedBody(
        res,
        await createLocation(ctx, identity, body, requestOrigin(req), (location) => ({ success: true, location: presentWidgetLocation(location) })),
      ),
  },
  {
    method: 'get',
    path: `${base}/location_inventory/`,
    operationId: 'widgetLocationInventory',
    tag,
    summary: 'What one physical location holds',
    description: `Products with stock there, by name. ${IDS} A QR scan's key sees only its code's target product there.`,
    security: 'api_key',
    request: { query: locationInventoryQuery },
    responses: { 200: { description: 'The location and its products.', schema: widgetLocationInventorySchema } },
    errors: [404],
    ownedFilters: { location_id: ID_OWNERS.location },
    handle: async (ctx, { query, identity }: Call<{ location_id: string }>) => {
      const location = await physicalLocation(identity, query.location_id);
      const rows = await stockAtLocation(ctx, identity, location.id, scanProduct(identity));
      return { location: { id: location.id, name: location.name, type: location.type }, products: rows.map(presentLocationProduct) };
    },
  },
  {
    method: 'get',
    path: `${base}/work_orders/`,
    operationId: 'widgetListWorkOrders',
    tag,
    summary: 'Open work orders',
    description: "`OPEN` and `IN_PROGRESS` work orders, earliest due first. A QR scan's key sees only the work order its code points at.",
    security: 'api_key',
    request: { query: noQuery },
    responses: { 200: { description: 'The open work orders.', schema: widgetWorkOrderListSchema } },
    handle: async (ctx, { identity }: Call) => ({ work_orders: (await listOpenWorkOrders(ctx, identity)).map(presentWidgetWorkOrder) }),
  },
);

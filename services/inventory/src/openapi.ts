/**
 * The inventory's endpoints, in the order they are routed (routes.ts), and its part of the OpenAPI document:
 * one tag per resource, every public operation.
 */
import type { Endpoint, ServiceApi } from '@pi/common';
import type { InventoryContext } from './context';
import { batchEndpoints } from './routes/batches/endpoints';
import { exportEndpoints } from './routes/export/endpoints';
import { itemEndpoints } from './routes/items/endpoints';
import { locationEndpoints } from './routes/locations/endpoints';
import { movementEndpoints } from './routes/movements/endpoints';
import { productModelEndpoints } from './routes/product-models/endpoints';
import { stockEndpoints } from './routes/stock/endpoints';
import { widgetBookingEndpoints } from './routes/widget/bookings';
import { widgetCatalogEndpoints } from './routes/widget/catalog';
import { widgetRecordEndpoints } from './routes/widget/records';
import { workOrderEndpoints } from './routes/work-orders/endpoints';

/** The dashboard's resources (bearer tokens). No path starts with the widget's prefix. */
export const coreEndpoints: Endpoint<InventoryContext>[] = [
  ...productModelEndpoints,
  ...exportEndpoints,
  ...stockEndpoints,
  ...movementEndpoints,
  ...locationEndpoints,
  ...itemEndpoints,
  ...batchEndpoints,
  ...workOrderEndpoints,
];

/** The widget's (API keys), the catalog's `{id}/` routes last: they would take the fixed names (`move/`, `locations/`). */
export const widgetEndpoints: Endpoint<InventoryContext>[] = [...widgetRecordEndpoints, ...widgetBookingEndpoints, ...widgetCatalogEndpoints];

export const inventoryApi: ServiceApi = {
  service: 'inventory',
  tags: [
    { name: 'product-models', description: 'The catalog: product models, their tracking profile and engine configuration, bulk import.' },
    { name: 'stock', description: 'Stock levels calculated from the ledger, per product and location.' },
    { name: 'movements', description: 'The append-only stock ledger, and bookings between two locations.' },
    { name: 'locations', description: 'Physical locations and the VIRTUAL system locations of the ledger.' },
    { name: 'items', description: 'Serialized physical items of SERIALIZED products.' },
    { name: 'batches', description: 'Batches (lots) of BATCH products, with expiry dates and remaining stock.' },
    { name: 'work-orders', description: 'Work orders and their status transitions.' },
    { name: 'export', description: "One JSON document of all of a company's records." },
    { name: 'widget', description: 'The embeddable widget (API key): products and stock, bookings, locations and records.' },
  ],
  operations: [...coreEndpoints, ...widgetEndpoints],
};

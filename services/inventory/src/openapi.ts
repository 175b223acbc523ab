/** The inventory service's part of the OpenAPI document: one tag per resource, every public operation. */
import type { ServiceApi } from '@pi/common';
import { batchOperations } from './routes/batches/openapi';
import { exportOperations } from './routes/export/openapi';
import { itemOperations } from './routes/items/openapi';
import { locationEndpoints } from './routes/locations/endpoints';
import { movementOperations } from './routes/movements/openapi';
import { productModelOperations } from './routes/product-models/openapi';
import { stockOperations } from './routes/stock/openapi';
import { widgetBookingEndpoints } from './routes/widget/bookings';
import { widgetCatalogEndpoints } from './routes/widget/catalog';
import { widgetRecordEndpoints } from './routes/widget/records';
import { workOrderOperations } from './routes/work-orders/openapi';

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
  operations: [
    ...productModelOperations,
    ...exportOperations,
    ...stockOperations,
    ...movementOperations,
    ...locationEndpoints,
    ...itemOperations,
    ...batchOperations,
    ...workOrderOperations,
    ...widgetCatalogEndpoints,
    ...widgetBookingEndpoints,
    ...widgetRecordEndpoints,
  ],
};

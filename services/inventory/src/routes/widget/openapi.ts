/** The OpenAPI operations of the widget's inventory routes (bookings.ts, catalog.ts, locations.ts, records.ts). */
import { operations, schemas } from '@pi/common';
import { signedMoveBody, transactionBody, transferBody } from '../../http/booking-schemas';
import { moveResultSchema, transactionResultSchema, transferResultSchema } from '../../presenters/movement';
import { productDetailSchema } from '../../presenters/stock';
import { stockHistorySchema } from '../../presenters/stock-history';
import { HISTORY_DESCRIPTION } from '../stock/openapi';
import { BOOKING_ERRORS, IDEMPOTENCY, REPLAYED_HEADER } from '../movements/openapi';
import {
  widgetBatchListSchema,
  widgetCreatedLocationSchema,
  widgetItemListSchema,
  widgetLocationInventorySchema,
  widgetLocationListSchema,
  widgetProductListSchema,
  widgetWorkOrderListSchema,
} from './responses';
import { batchesQuery, createLocationBody, itemsQuery, locationInventoryQuery, noQuery, productListQuery, widgetHistoryQuery } from './schema';

const base = '/api/v1/widget';
const tag = 'widget';
const IDS = 'Ids of another company answer 403; unknown ids, and VIRTUAL locations, 404.';
/** What every widget endpoint answers a QR scan's key (docs/api/scanning.md). */
const SCAN = "A QR scan's key reaches only its code's target: naming another product answers 403 `access_denied`.";

export const widgetOperations = operations(
  {
    method: 'get',
    path: `${base}/`,
    operationId: 'widgetListProducts',
    tag,
    summary: 'Products with their stock',
    description:
      'Active products by name; `poly_products` are the `DIMENSIONAL` ones (with `unit` and `decimals`). With `location_id` the stock ' +
      'shown is the stock at that location. With `barcode` only the product with that GTIN is listed (none when no product has it); ' +
      "a malformed barcode answers 400 naming `barcode`. A QR scan's key gets only its code's target product, in the same shape.",
    security: 'api_key',
    request: { query: productListQuery },
    responses: { 200: { description: 'The company name and its products.', schema: widgetProductListSchema } },
    errors: [404],
  },
  {
    method: 'get',
    path: `${base}/{id}/`,
    operationId: 'widgetGetProduct',
    tag,
    summary: 'A product with its stock by location',
    description: `\`batches\` come with \`BATCH\` products, \`items_count\` with \`SERIALIZED\` ones. ${SCAN}`,
    security: 'api_key',
    request: { params: schemas.idParams, query: noQuery },
    responses: { 200: { description: 'The product, its total stock and its stock per location.', schema: productDetailSchema } },
  },
  {
    method: 'get',
    path: `${base}/{id}/history/`,
    operationId: 'widgetGetStockHistory',
    tag,
    summary: "A product's total stock over time",
    description: `All physical locations together (the widget's sparkline). ${HISTORY_DESCRIPTION} ${SCAN}`,
    security: 'api_key',
    request: { params: schemas.idParams, query: widgetHistoryQuery },
    responses: { 200: { description: 'The balance at the end of each period.', schema: stockHistorySchema } },
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/{id}/transaction/`,
    operationId: 'widgetBookTransaction',
    tag,
    summary: 'Add, subtract or count stock of a product',
    description:
      '`add` books in from the VIRTUAL `Inbound`, `subtract` out to `Outbound`; `set` is a physical count, booked as the difference ' +
      '(no movement when equal; not for `SERIALIZED` products). With `expected_quantity` a `set` is a compare-and-swap: if the stock ' +
      'at the location is no longer `expected_quantity`, nothing is booked and the answer is 409 `stock_changed` ' +
      `(\`details {expected_quantity, current_quantity}\`). ${BOOKING_ERRORS} \`new_stock_display\` is the product's total. ${IDS} ${SCAN} Under the \`read\` scan policy a scan books nothing; under \`staff\` it answers 403 \`sign_in_required\` until a user signed in.\n\n${IDEMPOTENCY}`,
    security: 'api_key',
    request: { params: schemas.idParams, body: transactionBody },
    responses: { 200: { description: 'Booked.', schema: transactionResultSchema, headers: REPLAYED_HEADER } },
    errors: [409],
  },
  {
    method: 'post',
    path: `${base}/move/`,
    operationId: 'widgetMoveStock',
    tag,
    summary: 'Book stock in or out by the sign of the quantity',
    description: `A positive \`quantity\` books in (\`MOVE_IN\`), a negative one out (\`MOVE_OUT\`); zero is refused. ${BOOKING_ERRORS} ${IDS} ${SCAN}\n\n${IDEMPOTENCY}`,
    security: 'api_key',
    request: { body: signedMoveBody },
    responses: { 200: { description: 'Booked.', schema: moveResultSchema, headers: REPLAYED_HEADER } },
    errors: [404, 409],
  },
  {
    method: 'post',
    path: `${base}/transfer/`,
    operationId: 'widgetTransferStock',
    tag,
    summary: 'Transfer stock between two physical locations',
    description: `Between two distinct active physical locations, atomically. ${BOOKING_ERRORS} ${IDS} ${SCAN}\n\n${IDEMPOTENCY}`,
    security: 'api_key',
    request: { body: transferBody },
    responses: { 200: { description: 'Booked.', schema: transferResultSchema, headers: REPLAYED_HEADER } },
    errors: [404, 409],
  },
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
  },
  {
    method: 'post',
    path: `${base}/create_location/`,
    operationId: 'widgetCreateLocation',
    tag,
    summary: 'Create a physical location',
    description: "The parent, if any, must be a physical location of the company. A QR scan's key answers 403 `access_denied`.",
    security: 'api_key',
    request: { body: createLocationBody },
    responses: { 201: { description: 'The location created.', schema: widgetCreatedLocationSchema } },
    errors: [404],
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
  },
);

/** Every service's part (the gateway's own routes count twice: its API and its pages) of the OpenAPI document, in the order the document shows them. */
import type { ApiOperation, ServiceApi } from '@pi/common';
import { inventoryApi } from '@pi/inventory';
import { monitorApi } from '@pi/monitor';
import { qrApi } from '@pi/qr';
import { gatewayApi } from '../openapi';
import { pagesApi } from '../pages/operations';

export const SERVICE_APIS: ServiceApi[] = [gatewayApi, pagesApi, inventoryApi, qrApi, monitorApi];

export const allOperations = (): ApiOperation[] => SERVICE_APIS.flatMap((api) => api.operations);

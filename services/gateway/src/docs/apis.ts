/** Every service's part (the gateway's own routes count twice: its API and its pages) of the OpenAPI document, in the order the document shows them. */
import type { ApiOperation, ServiceApi } from '@pi/common';
// The services' `openapi` modules alone: the gateway reads their operations, never loads their routes.
import { inventoryApi } from '@pi/inventory/openapi';
import { monitorApi } from '@pi/monitor/openapi';
import { qrApi } from '@pi/qr/openapi';
import { gatewayApi } from '../openapi';
import { pagesApi } from '../pages/endpoints';

export const SERVICE_APIS: ServiceApi[] = [gatewayApi, pagesApi, inventoryApi, qrApi, monitorApi];

export const allOperations = (): ApiOperation[] => SERVICE_APIS.flatMap((api) => api.operations);

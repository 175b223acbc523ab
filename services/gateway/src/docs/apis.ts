/**
 * Every part of the OpenAPI document and of the public path table, in the order the document shows them: the
 * gateway's own operations and its pages, then each service's, read from the `dist/api.json` its build
 * published (docs/decisions/0006-endpoints-declared-once.md). The gateway depends on no service's code.
 */
import path from 'node:path';
import { loadPublishedApi, type ApiOperation, type ServiceApi } from '@pi/common';
import { gatewayApi } from '../openapi';
import { packageRoot } from '../package-root';
import { pagesApi } from '../pages/endpoints';
import { SERVICE_NAMES } from '../http/public-paths';

/** A service's package beside the gateway's in the repository (and in the image: Dockerfile). */
const servicePackage = (service: string): string => path.resolve(packageRoot(), '..', service);

export const SERVICE_APIS: ServiceApi[] = [gatewayApi, pagesApi, ...SERVICE_NAMES.map((service) => loadPublishedApi(servicePackage(service)))];

export const allOperations = (): ApiOperation[] => SERVICE_APIS.flatMap((api) => api.operations);

/**
 * Build step (`npm run build`): writes each service's operations to its `dist/api.json`, the data the gateway
 * builds its path table and the OpenAPI document from without importing any service
 * (docs/decisions/0006-endpoints-declared-once.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PUBLISHED_API_FILE, publishApi, type ServiceApi } from '@pi/common';
import { inventoryApi } from '@pi/inventory/openapi';
import { monitorApi } from '@pi/monitor/openapi';
import { qrApi } from '@pi/qr/openapi';

/** The repository's `services/` folder, from tools/dist/src. */
const SERVICES_DIR = path.resolve(__dirname, '../../../services');

for (const api of [inventoryApi, qrApi, monitorApi] satisfies ServiceApi[]) {
  const file = path.join(SERVICES_DIR, api.service, PUBLISHED_API_FILE);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, publishApi(api));
}

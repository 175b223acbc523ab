/** Inventory service: catalog, locations, the stock ledger and the widget inventory endpoints (docs/architecture.md). */
import './tracing'; // first: see tracing.ts
import { pathsOf, runService } from '@pi/common';
import { inventoryApi } from './openapi';
import { inventoryRoutes } from './routes';

runService({ name: 'inventory', portVariable: 'INVENTORY_PORT', defaultPort: 8001, routes: inventoryRoutes, paths: pathsOf(inventoryApi) }).catch((err) => {
  process.stderr.write(`inventory failed to start: ${(err as Error).stack}\n`);
  process.exit(1);
});

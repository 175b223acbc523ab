/** QR service: QR codes and their state machine, `/go/<code>/`, redirect tokens and labels (docs/architecture.md). */
import './tracing'; // first: see tracing.ts
import { pathsOf, runService } from '@pi/common';
import { QrSettings, qrEnv } from './config';
import { qrApi } from './openapi';
import { qrPublicRoutes, qrRoutes } from './routes';

runService<QrSettings>({
  name: 'qr',
  portVariable: 'QR_PORT',
  defaultPort: 8002,
  env: qrEnv,
  routes: qrRoutes,
  publicRoutes: qrPublicRoutes,
  paths: pathsOf(qrApi),
}).catch((err) => {
  process.stderr.write(`qr failed to start: ${(err as Error).stack}\n`);
  process.exit(1);
});

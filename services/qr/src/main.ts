/** QR service: QR codes and their state machine, `/go/<code>/`, redirect tokens (DESIGN.md §1). */
import { runService } from '@pi/common';
import { qrRoutes } from './routes';

runService({ name: 'qr', portVariable: 'QR_PORT', defaultPort: 8002, routes: qrRoutes }).catch((err) => {
  process.stderr.write(`qr failed to start: ${(err as Error).stack}\n`);
  process.exit(1);
});

/**
 * Gateway process: config, database, usage recorder, app, its metrics on an internal listener of their own
 * (GATEWAY_METRICS_PORT: never on the public port; docs/operations/metrics.md), and a clean stop on SIGTERM.
 */
import './tracing'; // first: see tracing.ts
import { closeServer, connectDatabase, createLogger, createMetricsRegistry, listen, loadConfigOrExit, metricsApp, serve } from '@pi/common';
import { CredentialCache } from './auth/credential-cache';
import { UsageRecorder } from './auth/usage-recorder';
import { createGatewayApp } from './app';
import { gatewayConfigSchema } from './config';
import { createRateLimits } from './rate-limits';

async function main() {
  const config = loadConfigOrExit(gatewayConfigSchema, 'gateway');
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const db = connectDatabase({ url: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, applicationName: 'pi-gateway', logger });
  const usage = new UsageRecorder(db.sequelize, logger, config.API_KEY_USAGE_FLUSH_MS);
  usage.start();
  const credentials = new CredentialCache(db.sequelize, { ttlMs: config.AUTH_CACHE_TTL_MS, databaseUrl: config.DATABASE_URL, logger });
  await credentials.start();
  const rateLimits = createRateLimits(config, logger);
  const metrics = createMetricsRegistry('gateway');
  const app = createGatewayApp({ config, sequelize: db.sequelize, logger, usage, credentials, metrics }, rateLimits);
  const metricsServer =
    config.GATEWAY_METRICS_PORT === undefined
      ? undefined
      : await listen(metricsApp(metrics, logger, { token: config.METRICS_TOKEN }), config.GATEWAY_METRICS_PORT);
  if (metricsServer) logger.info({ port: config.GATEWAY_METRICS_PORT }, 'metrics listener started');
  await serve(app, {
    port: config.GATEWAY_PORT,
    logger,
    onShutdown: [
      () => usage.stop(),
      () => credentials.stop(),
      async () => metricsServer && closeServer(metricsServer, 2000),
      () => db.close(),
      () => rateLimits.close(),
    ],
  });
}

main().catch((err) => {
  process.stderr.write(`gateway failed to start: ${(err as Error).stack}\n`);
  process.exit(1);
});

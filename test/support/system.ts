/**
 * The whole system in this process, on ephemeral ports, against the run's test database: the four services
 * behind a real gateway, with real HTTP between them. Every log line is kept in memory so tests can check
 * that no secret was logged.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Router } from 'express';
import {
  Database,
  Logger,
  MetricsRegistry,
  closeServer,
  connectDatabase,
  createLogger,
  createMetricsRegistry,
  createServiceApp,
  listen,
  metricsApp,
  pathsOf,
} from '@pi/common';
import { CredentialCache, GatewayConfig, UsageRecorder, createGatewayApp, createRateLimits, loadGatewayConfig } from '@pi/gateway';
import { inventoryApi, inventoryRoutes } from '@pi/inventory';
import { loadMonitorSettings, monitorApi, monitorRoutes } from '@pi/monitor';
import { NOTIFIER_PATHS, notifierRoutes } from '@pi/notifier';
import { qrApi, qrPublicRoutes, qrRoutes } from '@pi/qr';

export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.lines.push(chunk.toString('utf8'));
    done();
  }
  text(): string {
    return this.lines.join('');
  }
}

export interface RunningGateway {
  url: string;
  config: GatewayConfig;
  usage: UsageRecorder;
  credentials: CredentialCache;
  /** The gateway's metrics listener (its GATEWAY_METRICS_PORT; never the public port). */
  metricsUrl: string;
  close(): Promise<void>;
}

export interface TestSystem {
  url: string;
  db: Database;
  gateway: RunningGateway;
  serviceUrls: Record<'inventory' | 'qr' | 'monitor' | 'notifier', string>;
  internalJwtSecret: string;
  jwtSecret: string;
  qrTokenSecret: string;
  /** The monitor's SECRET_ENCRYPTION_KEY (base64 of 32 bytes): decrypts stored channel secrets. */
  secretEncryptionKey: string;
  logs: LogCapture;
  /** Another gateway on the same services and database, with some settings changed. */
  startGateway(env?: Record<string, string>): Promise<RunningGateway>;
  close(): Promise<void>;
}

const urlOf = (server: http.Server) => `http://127.0.0.1:${(server.address() as { port: number }).port}`;

export async function startTestSystem(databaseUrl: string): Promise<TestSystem> {
  const logs = new LogCapture();
  const logger = (name: string): Logger => createLogger(name, 'info', logs);
  const internalJwtSecret = randomBytes(32).toString('hex');
  const jwtSecret = randomBytes(32).toString('hex');
  const qrTokenSecret = randomBytes(32).toString('hex');
  const secretEncryptionKey = randomBytes(32).toString('base64');
  const db = connectDatabase({ url: databaseUrl, poolMax: 20, applicationName: 'pi-test-system' });
  const publicBaseUrl = 'http://localhost:8000';

  const servers: http.Server[] = [];
  // Each service measures into its own registry, served at its /metrics (docs/operations/metrics.md).
  const registryOf = (name: string): MetricsRegistry => createMetricsRegistry(name, { processMetrics: false });
  const registries = { inventory: registryOf('inventory'), qr: registryOf('qr'), monitor: registryOf('monitor'), notifier: registryOf('notifier') };
  const startService = async (name: keyof typeof registries, paths: string[], routes: Router, publicRoutes?: Router) => {
    const app = createServiceApp({ logger: logger(name), db, internalJwtSecret, paths, metrics: { registry: registries[name] } }, routes, publicRoutes);
    const server = await listen(app, 0, '127.0.0.1');
    servers.push(server);
    return urlOf(server);
  };
  const ctx = { db, config: { PUBLIC_BASE_URL: publicBaseUrl } };
  const qrCtx = { db, config: { PUBLIC_BASE_URL: publicBaseUrl, QR_TOKEN_SECRET: qrTokenSecret } };
  // No REDIS_URL: channel tests are sent synchronously; loopback webhooks reach the tests' own receivers.
  const monitorCtx = {
    db,
    config: {
      PUBLIC_BASE_URL: publicBaseUrl,
      ...loadMonitorSettings({ NODE_ENV: 'test', SECRET_ENCRYPTION_KEY: secretEncryptionKey, ALLOW_LOOPBACK_WEBHOOKS: 'true', EMAIL_BACKEND: 'console' }),
    },
    logger: logger('monitor'),
  };
  const serviceUrls = {
    inventory: await startService('inventory', pathsOf(inventoryApi), inventoryRoutes({ ...ctx, metrics: registries.inventory })),
    qr: await startService('qr', pathsOf(qrApi), qrRoutes(qrCtx), qrPublicRoutes(qrCtx)),
    monitor: await startService('monitor', pathsOf(monitorApi), monitorRoutes({ ...monitorCtx, metrics: registries.monitor })),
    notifier: await startService('notifier', NOTIFIER_PATHS, notifierRoutes()),
  };

  const startGateway = async (env: Record<string, string> = {}): Promise<RunningGateway> => {
    const config = loadGatewayConfig({
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      INTERNAL_JWT_SECRET: internalJwtSecret,
      JWT_SECRET: jwtSecret,
      PUBLIC_BASE_URL: publicBaseUrl,
      INVENTORY_URL: serviceUrls.inventory,
      QR_URL: serviceUrls.qr,
      MONITOR_URL: serviceUrls.monitor,
      NOTIFIER_URL: serviceUrls.notifier,
      PASSWORD_HASH_COST: '10',
      API_KEY_USAGE_FLUSH_MS: '100',
      // The default test gateway never rate-limits (a thousand tests share one client address); the gateways
      // that test/e2e/rate-limits.test.ts starts turn them on.
      RATE_LIMITS: 'off',
      ...env,
    });
    const gatewayLogger = logger('gateway');
    const usage = new UsageRecorder(db.sequelize, gatewayLogger, config.API_KEY_USAGE_FLUSH_MS);
    usage.start();
    // Its own rate limiter, closed with it: a gateway on Redis must not stay connected after its test.
    const rateLimits = createRateLimits(config, gatewayLogger);
    // Listening for credential changes like a deployed gateway, so every test runs against the cache.
    const credentials = new CredentialCache(db.sequelize, { ttlMs: config.AUTH_CACHE_TTL_MS, databaseUrl, logger: gatewayLogger });
    await credentials.start();
    const metrics = createMetricsRegistry('gateway', { processMetrics: false });
    const app = createGatewayApp({ config, sequelize: db.sequelize, logger: gatewayLogger, usage, credentials, metrics }, rateLimits);
    const server = await listen(app, 0, '127.0.0.1');
    const metricsServer = await listen(metricsApp(metrics, gatewayLogger, { token: config.METRICS_TOKEN }), 0, '127.0.0.1');
    return {
      url: urlOf(server),
      metricsUrl: urlOf(metricsServer),
      config,
      usage,
      credentials,
      close: async () => {
        await closeServer(server, 2000);
        await closeServer(metricsServer, 2000);
        await usage.stop();
        await credentials.stop();
        await rateLimits.close();
      },
    };
  };

  const gateway = await startGateway();
  return {
    url: gateway.url,
    db,
    gateway,
    serviceUrls,
    internalJwtSecret,
    jwtSecret,
    qrTokenSecret,
    secretEncryptionKey,
    logs,
    startGateway,
    close: async () => {
      await gateway.close();
      for (const server of servers) await closeServer(server, 2000);
      await db.close();
    },
  };
}

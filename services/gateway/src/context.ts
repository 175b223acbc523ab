import type { Sequelize } from 'sequelize';
import type { Logger, MetricsRegistry } from '@pi/common';
import type { CredentialCache } from './auth/credential-cache';
import type { UsageRecorder } from './auth/usage-recorder';
import type { GatewayConfig } from './config';

/** What the gateway's routes and commands share, built once in main.ts (or by a test). */
export interface GatewayContext {
  config: GatewayConfig;
  sequelize: Sequelize;
  logger: Logger;
  usage: UsageRecorder;
  /** API keys and users as authentication reads them (cached while change notifications arrive). */
  credentials: CredentialCache;
  /** Where requests and the pool are measured (served by main.ts on GATEWAY_METRICS_PORT); none: not measured. */
  metrics?: MetricsRegistry;
}

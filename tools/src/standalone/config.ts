/**
 * The launcher's own settings (docs/operations/configuration.md), read and validated once at start. The services'
 * settings are theirs to validate; the launcher passes them on (services.ts) and records the shared ones for
 * the commands (libs/db standalone-settings.ts).
 */
import path from 'node:path';
import Joi from 'joi';
import { loadConfig } from '@pi/common';
import { EMBEDDED_READY_TIMEOUT_MS } from '@pi/db';

export interface LauncherConfig {
  DATA_DIR: string;
  /** Set: the embedded PostgreSQL's port, over the one remembered in standalone.json. */
  EMBEDDED_PG_PORT?: number;
  /** Seconds the embedded PostgreSQL may take to accept connections (crash recovery included). */
  EMBEDDED_PG_START_TIMEOUT_SECONDS: number;
  /** Seconds between two scheduled check_rules runs; 0: no scheduler. */
  CHECK_RULES_INTERVAL_SECONDS: number;
  DATABASE_URL?: string;
  NODE_ENV: 'development' | 'test' | 'production';
}

const schema = Joi.object<LauncherConfig>({
  DATA_DIR: Joi.string().default('./data'),
  EMBEDDED_PG_PORT: Joi.number().port().min(1),
  EMBEDDED_PG_START_TIMEOUT_SECONDS: Joi.number()
    .integer()
    .min(1)
    .max(86_400)
    .default(EMBEDDED_READY_TIMEOUT_MS / 1000),
  CHECK_RULES_INTERVAL_SECONDS: Joi.number().integer().min(0).max(86_400).default(60),
  DATABASE_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
  NODE_ENV: Joi.string().valid('development', 'test', 'production').default('development'),
});

export function loadLauncherConfig(env: NodeJS.ProcessEnv): LauncherConfig {
  const config = loadConfig(schema, env);
  return { ...config, DATA_DIR: path.resolve(config.DATA_DIR) };
}

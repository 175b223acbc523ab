/**
 * The `main.ts` of an internal service: read and validate its config, connect to the database, build the
 * app with the shared skeleton, serve until SIGTERM, close the pool.
 */
import type { Router } from 'express';
import Joi from 'joi';
import { commonEnv, loadConfigOrExit } from '../config/load';
import { Database, connectDatabase } from '../db/database';
import { Logger, createLogger } from '../logger';
import { createServiceApp } from './service-app';
import { serve } from './serve';

export interface ServiceConfig {
  NODE_ENV: 'development' | 'test' | 'production';
  LOG_LEVEL: string;
  DATABASE_URL: string;
  DATABASE_POOL_MAX: number;
  INTERNAL_JWT_SECRET: string;
  PUBLIC_BASE_URL: string;
  PORT: number;
}

/** Reads the config of a service listening on `<portVariable>` (e.g. INVENTORY_PORT); exits when invalid. */
export function loadServiceConfig(name: string, portVariable: string, defaultPort: number): ServiceConfig {
  const schema = Joi.object({ ...commonEnv, [portVariable]: Joi.number().port().default(defaultPort) });
  const values = loadConfigOrExit(schema, name) as Omit<ServiceConfig, 'PORT'> & Record<string, unknown>;
  return { ...values, PORT: values[portVariable] as number };
}

export interface ServiceDefinition {
  name: string;
  portVariable: string;
  defaultPort: number;
  routes(ctx: { db: Database; config: ServiceConfig; logger: Logger }): Router;
}

export async function runService(def: ServiceDefinition): Promise<void> {
  const config = loadServiceConfig(def.name, def.portVariable, def.defaultPort);
  const logger = createLogger(def.name, config.LOG_LEVEL);
  const db = connectDatabase({ url: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX });
  const app = createServiceApp({ logger, db, internalJwtSecret: config.INTERNAL_JWT_SECRET }, def.routes({ db, config, logger }));
  await serve(app, { port: config.PORT, logger, onShutdown: [() => db.close()] });
}

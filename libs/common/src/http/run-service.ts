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
import { MetricsRegistry, createMetricsRegistry } from '../metrics/registry';
import { serve } from './serve';

export interface ServiceConfig {
  NODE_ENV: 'development' | 'test' | 'production';
  LOG_LEVEL: string;
  DATABASE_URL: string;
  DATABASE_POOL_MAX: number;
  INTERNAL_JWT_SECRET: string;
  PUBLIC_BASE_URL: string;
  PORT: number;
  /** Bearer token `/metrics` requires when set. */
  METRICS_TOKEN?: string;
}

/**
 * Reads the config of a service listening on `<portVariable>` (e.g. INVENTORY_PORT), with the service's own
 * variables (`env`, joi schemas by name); exits naming every bad setting.
 */
export function loadServiceConfig<E extends object = object>(
  name: string,
  portVariable: string,
  defaultPort: number,
  env: Record<string, Joi.Schema> = {},
): ServiceConfig & E {
  const schema = Joi.object({ ...commonEnv, ...env, [portVariable]: Joi.number().port().default(defaultPort) });
  const values = loadConfigOrExit(schema, name) as Omit<ServiceConfig, 'PORT'> & Record<string, unknown>;
  return { ...values, PORT: values[portVariable] as number } as ServiceConfig & E;
}

export interface ServiceContext<E extends object = object> {
  db: Database;
  config: ServiceConfig & E;
  logger: Logger;
  /** The service's Prometheus registry: its own metrics go here, `/metrics` serves it (docs/operations/metrics.md). */
  metrics: MetricsRegistry;
}

export interface ServiceDefinition<E extends object = object> {
  name: string;
  portVariable: string;
  defaultPort: number;
  /** The service's own environment variables, validated with the common ones. */
  env?: Record<string, Joi.Schema>;
  routes(ctx: ServiceContext<E>): Router;
  /** The path templates the service answers (`pathsOf(api)` of its OpenAPI module); the shared skeleton refuses any other. */
  paths: string[];
  /** Routes reachable with the gateway's anonymous token (e.g. a QR scan). */
  publicRoutes?(ctx: ServiceContext<E>): Router;
  /** Background work beside the HTTP server (e.g. a queue worker), started before the server listens. */
  start?(ctx: ServiceContext<E>): ServiceExtras | Promise<ServiceExtras>;
}

export interface ServiceExtras {
  /** Extra /readyz checks besides the database (e.g. Redis). */
  readinessChecks?: Array<() => Promise<void>>;
  /** Cleanup on SIGTERM once the server stopped accepting, before the pool closes (e.g. drain a worker). */
  onShutdown?: Array<() => Promise<void>>;
}

export async function runService<E extends object = object>(def: ServiceDefinition<E>): Promise<void> {
  const config = loadServiceConfig<E>(def.name, def.portVariable, def.defaultPort, def.env);
  const logger = createLogger(def.name, config.LOG_LEVEL);
  const db = connectDatabase({ url: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, applicationName: `pi-${def.name}`, logger });
  const ctx = { db, config, logger, metrics: createMetricsRegistry(def.name) };
  const extras: ServiceExtras = (await def.start?.(ctx)) ?? {};
  const app = createServiceApp(
    {
      logger,
      db,
      internalJwtSecret: config.INTERNAL_JWT_SECRET,
      readinessChecks: extras.readinessChecks,
      paths: def.paths,
      metrics: { registry: ctx.metrics, token: config.METRICS_TOKEN },
    },
    def.routes(ctx),
    def.publicRoutes?.(ctx),
  );
  await serve(app, { port: config.PORT, logger, onShutdown: [...(extras.onShutdown ?? []), () => db.close()] });
}

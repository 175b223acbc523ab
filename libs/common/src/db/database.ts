/**
 * The PostgreSQL connection every service shares (one database, one owner per table; docs/architecture.md).
 * Models are registered once per Sequelize instance; `sync()` is never used: the schema comes from the
 * migrations in ./migrations.
 *
 * The connection survives PostgreSQL dropping it (docs/api/deadlines-and-retries.md): its clients cannot crash
 * the process (pg-client.ts), lost connections are retried where that is safe and transactions are bounded by
 * the request's deadline (resilient-sequelize.ts), and TCP keep-alive and a connect timeout keep a vanished
 * server from holding a connection forever.
 */
import 'reflect-metadata';
import type { Sequelize } from 'sequelize-typescript';
import type { Logger } from '../logger';
import { ALL_MODELS } from './models';
import { resilientPg } from './pg-client';
import { ResilientSequelize } from './resilient-sequelize';

export interface Database {
  sequelize: Sequelize;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url: string;
  poolMax?: number;
  logging?: (sql: string) => void;
  /** PostgreSQL's `application_name` of every connection (`pi-<process>`: pg_stat_activity tells them apart). */
  applicationName?: string;
  /** Where retries after lost connections are logged. */
  logger?: Logger;
  /**
   * false: a bare connection, for a second one in a process that already serves. Model classes belong to the
   * last Sequelize instance that registered them, so registering them again would move them away from it.
   */
  withModels?: boolean;
}

/** How long opening a connection may take before it counts as failed (and is retried). */
const CONNECT_TIMEOUT_MS = 10_000;

export function connectDatabase({ url, poolMax = 10, logging, applicationName, logger, withModels = true }: DatabaseOptions): Database {
  const sequelize = new ResilientSequelize(
    url,
    {
      dialect: 'postgres',
      dialectModule: resilientPg,
      dialectOptions: {
        keepAlive: true,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        ...(applicationName ? { application_name: applicationName } : {}),
      },
      logging: logging ?? false,
      pool: { max: poolMax, min: 0, idle: 10_000, acquire: 30_000 },
      models: withModels ? ALL_MODELS : [],
      define: { underscored: true, timestamps: true },
    },
    logger,
  );
  return { sequelize, close: () => sequelize.close() };
}

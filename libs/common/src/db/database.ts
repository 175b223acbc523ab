/**
 * The PostgreSQL connection every service shares (one database, one owner per table; DESIGN.md §2).
 * Models are registered once per Sequelize instance; `sync()` is never used: the schema comes from the
 * migrations in ./migrations.
 */
import 'reflect-metadata';
import { Sequelize } from 'sequelize-typescript';
import { ALL_MODELS } from './models';

export interface Database {
  sequelize: Sequelize;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url: string;
  poolMax?: number;
  logging?: (sql: string) => void;
}

export function connectDatabase({ url, poolMax = 10, logging }: DatabaseOptions): Database {
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    logging: logging ?? false,
    pool: { max: poolMax, min: 0, idle: 10_000, acquire: 30_000 },
    models: ALL_MODELS,
    define: { underscored: true, timestamps: true },
  });
  return { sequelize, close: () => sequelize.close() };
}

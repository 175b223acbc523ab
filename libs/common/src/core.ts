/**
 * `@pi/common/core`: everything of `@pi/common` that loads no package of an HTTP server (Express, prom-client,
 * jsonwebtoken, passport). check_rules and the migration command import it, and so do the libraries they use
 * (`@pi/db`, `@pi/notify`): a command starts without loading a web framework it never runs. Loading the
 * check_rules command went from 0.63 to 0.51 s (docs/operations/benchmarks.md). test/e2e/start-up.test.ts
 * checks it. The services import `@pi/common`, which is this and the HTTP kit (index.ts).
 */
export * from './errors';
export * from './identity';
export * from './logger';
export * from './config/load';
export * from './http/request-id';
export * from './http/error-middleware';
export * from './http/validate';
export * from './http/paths';
export * from './http/field-map';
export * from './http/hostile-text';
export * from './http/json-breadth';
export * from './http/query-encoding';
export * from './http/owned-filters';
export * from './http/pagination';
export * from './http/access-log';
export * from './http/serve';
export * from './auth/secret-keys';
export * from './auth/scan-scope';
export * from './db/database';
export * from './db/models';
export * from './db/ownership';
export * from './db/id-owners';
export * from './auth/api-key-values';
export * from './monitoring/conditions';
export * from './openapi/operation';
export * from './db/deadline';
export * from './db/connection-loss';
export * from './db/pg-client';
export * from './db/resilient-sequelize';
export * from './http/request-deadline';
export * from './http/ordering';
export * from './tracing';
export * from './audit/audit-log';
export * from './openapi/published';
// Types only: what a command's settings and a library's options name, without loading their modules.
export type { ServiceConfig } from './http/run-service';
export type { MetricsRegistry } from './metrics/registry';

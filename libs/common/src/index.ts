/**
 * `@pi/common`: the core every process shares (core.ts) and the HTTP kit of the services: declared endpoints,
 * the service app and its start, JSON bodies, health, the internal token between gateway and services, and
 * Prometheus metrics.
 */
export * from './core';
export * from './http/json-body';
export * from './http/service-app';
export * from './http/endpoints';
export * from './http/health';
export * from './http/run-service';
export * from './auth/internal-token';
export * from './metrics';

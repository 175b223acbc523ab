/**
 * One Prometheus registry per service (docs/operations/metrics.md). A registry of its own rather than
 * prom-client's global one: the test system runs every service in one process, and each must still expose
 * only its own numbers. Every series carries `service` (gateway, inventory, qr, monitor, notifier), so one
 * dashboard can tell the services apart wherever Prometheus scrapes them.
 */
import { Registry, collectDefaultMetrics } from 'prom-client';

export type MetricsRegistry = Registry;

export interface MetricsRegistryOptions {
  /** The process metrics of prom-client (CPU, memory, event loop lag, GC); on by default. */
  processMetrics?: boolean;
}

export function createMetricsRegistry(service: string, opts: MetricsRegistryOptions = {}): MetricsRegistry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (opts.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  return registry;
}

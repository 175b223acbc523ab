/**
 * `startTracing('<service>')`: the first thing a process does (each service's `tracing.ts`, imported first by
 * its main.ts), before express, pg or http are loaded, so that they can be instrumented. With tracing off
 * (no OTEL_* variable turns it on: settings.ts) it returns at once and loads nothing of OpenTelemetry.
 *
 * Import it by its own path (`@pi/common/dist/src/tracing/start`), never through `@pi/common`'s index, which
 * loads the instrumented modules. A second call in the same process (the first one's name stays) does nothing.
 */
import { ConfigError } from '../config/load';
import { tracingSettingsFrom } from './settings';
import { tracingEnabled } from './state';

/** Starts tracing when the environment (default: process.env) asks for it; answers whether this process traces. */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (tracingEnabled()) return true;
  let settings;
  try {
    settings = tracingSettingsFrom(env, service);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${service}: ${err.message}\n`);
    process.exit(78); // EX_CONFIG, as loadConfigOrExit
  }
  if (!settings.enabled) return false;
  // Loaded here, and only here: a process that does not trace never requires the SDK.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { installTracing } = require('./sdk') as typeof import('./sdk');
  installTracing({ serviceName: settings.serviceName, exporter: settings.exporter });
  return true;
}

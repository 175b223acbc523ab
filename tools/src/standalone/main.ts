/**
 * `npm start`: the whole system on one machine. Starts the embedded PostgreSQL of DATA_DIR (or uses
 * DATABASE_URL), applies migrations, starts the five services as child processes, prints the gateway URL
 * once it answers, and then runs check_rules on a schedule (scheduler.ts). The settings it gives the
 * services are recorded in DATA_DIR/standalone.json for the commands. SIGINT/SIGTERM stop the scheduler,
 * the children, then the database; data stays in DATA_DIR.
 */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import Joi from 'joi';
import { ConfigError, connectDatabase, loadConfig, tracingSettingsFrom } from '@pi/common';
import {
  EmbeddedPostgres,
  loadOrCreateStandaloneState,
  migrateUp,
  settleEmbeddedPort,
  sharedSettingsOf,
  StandaloneStartError,
  startEmbeddedPostgres,
  writeStandaloneState,
} from '@pi/db';
import { deliveryEnv } from '@pi/notify';
import { LauncherConfig, loadLauncherConfig } from './config';
import { CheckRulesScheduler } from './scheduler';
import { ChildSpec, childEnvironment, childSpecs } from './services';

const say = (message: string) => process.stdout.write(`[standalone] ${message}\n`);

async function waitUntilAnswers(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new StandaloneStartError(`${url} exited with code ${child.exitCode} before it was ready`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new StandaloneStartError(`${url} did not become ready in ${timeoutMs} ms`);
}

function startChild(spec: ChildSpec, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--enable-source-maps', spec.script], { env, stdio: ['ignore', 'inherit', 'inherit'] });
}

async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

let embedded: EmbeddedPostgres | undefined;
let scheduler: CheckRulesScheduler | undefined;
const children = new Map<string, ChildProcess>();
let stopping = false;

/** Starts one service and resolves once it answers its health check; its unexpected exit stops everything. */
async function startAndAwait(spec: ChildSpec, env: NodeJS.ProcessEnv): Promise<void> {
  const child = startChild(spec, env);
  children.set(spec.name, child);
  child.once('exit', (code, signal) => {
    if (stopping) return;
    say(`${spec.name} exited unexpectedly (${signal ?? `code ${code}`}); stopping everything`);
    void shutdown(1);
  });
  await waitUntilAnswers(`http://127.0.0.1:${spec.port}/healthz`, child);
}

/** Gateway first so no new requests arrive, then the services, then the database. */
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  await scheduler?.stop();
  say('stopping services');
  for (const name of ['gateway', 'notifier', 'monitor', 'qr', 'inventory']) {
    const child = children.get(name);
    if (child) await stopChild(child);
  }
  if (embedded) {
    say('stopping embedded PostgreSQL');
    await embedded.stop().catch((err: Error) => say(`could not stop PostgreSQL cleanly: ${err.message}`));
  }
  say('stopped');
  process.exit(code);
}

async function main() {
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
  const config = readConfig();
  const dataDir = config.DATA_DIR;
  const state = await loadOrCreateStandaloneState(dataDir, config.EMBEDDED_PG_PORT);
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    const moved = await settleEmbeddedPort(dataDir, state, config.EMBEDDED_PG_PORT);
    if (moved) say(moved);
    say(`starting embedded PostgreSQL in ${path.join(dataDir, 'postgres')} (port ${state.postgres.port})`);
    embedded = await startEmbeddedPostgres(dataDir, state, { readyTimeoutMs: config.EMBEDDED_PG_START_TIMEOUT_SECONDS * 1000 });
    // As a service's exit does (docs/operations/configuration.md, "a process that dies").
    embedded.onUnexpectedExit((how) => {
      say(`embedded PostgreSQL exited unexpectedly (${how}); stopping everything`);
      void shutdown(1);
    });
    databaseUrl = embedded.url;
  }

  const db = connectDatabase({ url: databaseUrl, poolMax: 2, applicationName: 'pi-standalone' });
  const applied = await migrateUp(db.sequelize);
  await db.close();
  say(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');

  const specs = childSpecs(process.env);
  // Generated secrets are for development only: in production every secret must come from the environment.
  const generatedSecrets = config.NODE_ENV === 'production' ? {} : state.secrets;
  const settings = sharedSettingsOf(process.env);
  const env = childEnvironment({ ...process.env, ...settings }, specs, databaseUrl, generatedSecrets);
  // What the commands (check_rules, admin, migrate, stock:verify) start from when run without DATABASE_URL.
  state.settings = settings;
  writeStandaloneState(dataDir, state);
  // The four services start together (each spends most of a second loading its code), the gateway once
  // they all answer, so that it never forwards to a service that is not listening yet.
  const gateway = specs.find((s) => s.name === 'gateway')!;
  await Promise.all(specs.filter((spec) => spec !== gateway).map((spec) => startAndAwait(spec, env)));
  await startAndAwait(gateway, env);
  await waitUntilAnswers(`http://127.0.0.1:${gateway.port}/readyz`, children.get('gateway')!);
  // Everything said about the running system comes before the ready line, which tools wait for.
  describeEmail(env);
  describeTracing(env);
  startScheduler(config, env);
  say(`ready: gateway listening at ${env.PUBLIC_BASE_URL} (port ${gateway.port})`);
}

/** Whether the services trace, said once (docs/operations/tracing.md); a bad setting is theirs to report. */
function describeTracing(env: NodeJS.ProcessEnv) {
  try {
    if (!tracingSettingsFrom(env, 'gateway').enabled) return;
  } catch {
    return;
  }
  const configured = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  // The host only: an endpoint URL may carry a password.
  const endpoint = configured ? new URL(configured).host : 'localhost:4318';
  say(`tracing: on, ${env.OTEL_TRACES_EXPORTER === 'console' ? 'spans written to this output' : `spans exported with OTLP/HTTP to ${endpoint}`}`);
}

/** Where notification emails go, said once, so a console backend's messages are found in this output. */
function describeEmail(env: NodeJS.ProcessEnv) {
  // The services' own defaults decide (libs/notify settings.ts); a bad value is theirs to report.
  const { DEBUG, EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT } = deliveryEnv;
  let email: { EMAIL_BACKEND: string; EMAIL_HOST: string; EMAIL_PORT: number };
  try {
    email = loadConfig<typeof email>(Joi.object({ DEBUG, EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT }), env);
  } catch {
    return;
  }
  say(
    email.EMAIL_BACKEND === 'console'
      ? 'email: console backend (debug mode): notification emails are not sent; each is written to this output as an "email not sent" log line'
      : `email: sent through SMTP at ${email.EMAIL_HOST}:${email.EMAIL_PORT}`,
  );
}

function startScheduler(config: LauncherConfig, env: NodeJS.ProcessEnv) {
  if (config.CHECK_RULES_INTERVAL_SECONDS === 0) {
    say('check_rules is not scheduled (CHECK_RULES_INTERVAL_SECONDS=0): run `npm run check_rules` yourself');
    return;
  }
  say(`check_rules runs every ${config.CHECK_RULES_INTERVAL_SECONDS} s (CHECK_RULES_INTERVAL_SECONDS)`);
  scheduler = new CheckRulesScheduler(config.CHECK_RULES_INTERVAL_SECONDS, env, say);
  scheduler.start();
}

function readConfig(): LauncherConfig {
  try {
    return loadLauncherConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`[standalone] ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

main().catch((err: unknown) => {
  // A failure the launcher expects says what happened in its message; any other keeps its stack for the report.
  const told = err instanceof StandaloneStartError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`[standalone] failed: ${told}\n`);
  void shutdown(1);
});

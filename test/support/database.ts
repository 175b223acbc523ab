/**
 * The test run's PostgreSQL and a database of its own for each test process.
 *
 * The server is chosen once per run (`startTestServer`, from the root hooks' global setup): DATABASE_URL's
 * server if set, else 127.0.0.1:5432, else an embedded PostgreSQL started in a temporary directory (so the
 * suite runs on a machine without any PostgreSQL); TEST_DATABASE=embedded forces the embedded one. The choice
 * reaches mocha's worker processes through the environment (`PI_TEST_SERVER_URL`), and every database a run
 * creates is named with the run's id so that the run's end drops them all (`dropRunDatabases`).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { canConnect, freePort, loadOrCreateStandaloneState, startEmbeddedPostgres } from '@pi/db';

export interface TestDatabase {
  url: string;
  /** Where the server came from, for the run's log. */
  source: string;
  drop(): Promise<void>;
}

export interface TestServer {
  /** The server's `postgres` database. */
  url: string;
  source: string;
  stop(): Promise<void>;
}

const LOCAL_SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function adminQuery<T = unknown>(serverUrl: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

async function startEmbeddedServer(): Promise<TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-test-pg-'));
  const state = await loadOrCreateStandaloneState(dir, await freePort());
  const pg = await startEmbeddedPostgres(dir, state);
  return {
    url: withDatabase(pg.url, 'postgres'),
    source: 'embedded PostgreSQL',
    stop: async () => {
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The server a run's databases live on: the run's own (chosen by the global setup), or one chosen now; `stop`
 * ends it if it was started here.
 */
export async function startTestServer(env = process.env): Promise<TestServer> {
  const stop = async () => {};
  if (env.PI_TEST_SERVER_URL) return { url: env.PI_TEST_SERVER_URL, source: env.PI_TEST_SERVER_SOURCE ?? 'the run’s PostgreSQL', stop };
  if (env.TEST_DATABASE !== 'embedded' && env.DATABASE_URL) return { url: withDatabase(env.DATABASE_URL, 'postgres'), source: 'DATABASE_URL', stop };
  if (env.TEST_DATABASE !== 'embedded' && (await canConnect(LOCAL_SERVER))) return { url: LOCAL_SERVER, source: 'PostgreSQL on 127.0.0.1:5432', stop };
  return startEmbeddedServer();
}

/** Databases of this run are `pi_test_<run>_…`; outside a run (no global setup) the run is this process. */
const runPrefix = (env: NodeJS.ProcessEnv) => `pi_test_${env.PI_TEST_RUN ?? `p${process.pid}`}_`;

/** A new empty database on the run's server (or on a server chosen now, stopped with the database's `drop`). */
export async function createTestDatabase(env = process.env): Promise<TestDatabase> {
  const server = await startTestServer(env);
  const name = `${runPrefix(env)}${Date.now()}_${randomBytes(3).toString('hex')}`;
  await adminQuery(server.url, `CREATE DATABASE ${name}`);
  return {
    url: withDatabase(server.url, name),
    source: server.source,
    drop: async () => {
      await adminQuery(server.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await server.stop();
    },
  };
}

/** Drops every database this run created, those of worker processes that ended without dropping theirs included. */
export async function dropRunDatabases(serverUrl: string, env = process.env): Promise<void> {
  const pattern = `${runPrefix(env).replace(/_/g, '\\_')}%`;
  const rows = await adminQuery<{ datname: string }>(serverUrl, 'SELECT datname FROM pg_database WHERE datname LIKE $1', [pattern]);
  for (const { datname } of rows) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
}

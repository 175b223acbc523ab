/**
 * A PostgreSQL database of its own for each test run: on DATABASE_URL's server if set, else on
 * 127.0.0.1:5432, else on an embedded PostgreSQL started in a temporary directory (so the suite runs on a
 * machine without any PostgreSQL). TEST_DATABASE=embedded forces the embedded one.
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

const LOCAL_SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function adminQuery(serverUrl: string, sql: string) {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function startEmbeddedServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-test-pg-'));
  const state = await loadOrCreateStandaloneState(dir, await freePort());
  const pg = await startEmbeddedPostgres(dir, state);
  return {
    url: withDatabase(pg.url, 'postgres'),
    stop: async () => {
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function createTestDatabase(env = process.env): Promise<TestDatabase> {
  let serverUrl: string;
  let source: string;
  let stopServer = async () => {};
  if (env.TEST_DATABASE !== 'embedded' && env.DATABASE_URL) {
    serverUrl = withDatabase(env.DATABASE_URL, 'postgres');
    source = 'DATABASE_URL';
  } else if (env.TEST_DATABASE !== 'embedded' && (await canConnect(LOCAL_SERVER))) {
    serverUrl = LOCAL_SERVER;
    source = 'PostgreSQL on 127.0.0.1:5432';
  } else {
    const embedded = await startEmbeddedServer();
    serverUrl = embedded.url;
    stopServer = () => embedded.stop();
    source = 'embedded PostgreSQL';
  }
  const name = `pi_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  return {
    url: withDatabase(serverUrl, name),
    source,
    drop: async () => {
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await stopServer();
    },
  };
}

/**
 * Mocha's root hooks and global fixtures (docs/operations/testing.md):
 * - the run chooses its PostgreSQL server once (global setup, in mocha's main process) and drops every
 *   database it made at the end (global teardown), after the worker processes have ended;
 * - each test process (a parallel worker, or the one process of `TEST_JOBS=1`) makes one database and starts
 *   one system the first time a file needs it, and keeps them for every later file it runs: suites make their
 *   own companies, so they never share state, and a migration and a system start per file were about a third
 *   of `npm test`.
 * Suites reach the system through `system()`. What else a process keeps for its later files (the browser
 * suites' Chromium, support/browser.ts) is handed to `atProcessEnd`, which ends it where the process does not
 * just exit.
 */
import { randomBytes } from 'node:crypto';
import { TestDatabase, TestServer, createTestDatabase, dropRunDatabases, startTestServer } from './database';
import { TestSystem, startTestSystem } from './system';
import { connectDatabase } from '@pi/common';
import { migrateUp } from '@pi/db';

let server: TestServer | undefined;
let database: TestDatabase | undefined;
let running: TestSystem | undefined;

export function system(): TestSystem {
  if (!running) throw new Error('the test system is not running (root hooks not loaded?)');
  return running;
}

/** Cleanups of what the test process keeps between files, run after its last file (workers just exit). */
const processEndCleanups: Array<() => Promise<void>> = [];

export function atProcessEnd(cleanup: () => Promise<void>): void {
  processEndCleanups.push(cleanup);
}

export function testDatabaseUrl(): string {
  if (!database) throw new Error('no test database');
  return database.url;
}

/** Mocha sets MOCHA_WORKER_ID in its parallel workers, which run one file after another. */
const inWorker = () => process.env.MOCHA_WORKER_ID !== undefined;

export async function mochaGlobalSetup() {
  server = await startTestServer();
  process.env.PI_TEST_SERVER_URL = server.url;
  process.env.PI_TEST_SERVER_SOURCE = server.source;
  process.env.PI_TEST_RUN = randomBytes(4).toString('hex');
  process.stdout.write(`  test database server: ${server.source}\n`);
}

export async function mochaGlobalTeardown() {
  if (!server) return;
  await dropRunDatabases(server.url);
  await server.stop();
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    if (running) return;
    this.timeout(120_000);
    database = await createTestDatabase();
    const migrator = connectDatabase({ url: database.url, poolMax: 2 });
    await migrateUp(migrator.sequelize);
    await migrator.close();
    running = await startTestSystem(database.url);
  },
  async afterAll(this: Mocha.Context) {
    // A worker keeps its system for its next file; the global teardown drops its database.
    if (inWorker()) return;
    this.timeout(60_000);
    for (const cleanup of processEndCleanups.splice(0)) await cleanup();
    await running?.close();
    await database?.drop();
    running = undefined;
    database = undefined;
  },
};

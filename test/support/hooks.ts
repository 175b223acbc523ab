/**
 * Mocha root hooks: one test database and one running system for the whole run, torn down at the end.
 * Suites reach them through `system()`.
 */
import { TestDatabase, createTestDatabase } from './database';
import { TestSystem, startTestSystem } from './system';
import { connectDatabase } from '@pi/common';
import { migrateUp } from '@pi/db';

let database: TestDatabase | undefined;
let running: TestSystem | undefined;

export function system(): TestSystem {
  if (!running) throw new Error('the test system is not running (root hooks not loaded?)');
  return running;
}

export function testDatabaseUrl(): string {
  if (!database) throw new Error('no test database');
  return database.url;
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    database = await createTestDatabase();
    const migrator = connectDatabase({ url: database.url, poolMax: 2 });
    await migrateUp(migrator.sequelize);
    await migrator.close();
    running = await startTestSystem(database.url);
    process.stdout.write(`  test database: ${database.source}\n`);
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await running?.close();
    await database?.drop();
  },
};

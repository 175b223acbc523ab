/**
 * `npm run migrate`: applies pending migrations to DATABASE_URL, or to the database of the standalone system
 * of DATA_DIR (the one the last `npm start` used).
 */
import { connectDatabase, operatorMessage } from '@pi/common/core';
import { migrateUp } from './migrator';
import { openDatabaseUrl } from './standalone';
import { standaloneEnvironment } from './standalone-settings';

async function main() {
  const target = await openDatabaseUrl(standaloneEnvironment(process.env));
  const db = connectDatabase({ url: target.url, poolMax: 2, applicationName: 'pi-migrate' });
  try {
    const applied = await migrateUp(db.sequelize);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
  } finally {
    await db.close();
    await target.release();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`migrate failed: ${operatorMessage(err)}\n`);
  process.exit(1);
});

/** `npm run migrate`: applies pending migrations to DATABASE_URL, or to the standalone database of DATA_DIR. */
import { connectDatabase } from './database';
import { migrateUp } from './migrator';
import { openDatabaseUrl } from './standalone';

async function main() {
  const target = await openDatabaseUrl(process.env);
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
  process.stderr.write(`migrate failed: ${err.message}\n`);
  process.exit(1);
});

/**
 * Schema migrations with umzug, recorded in the `schema_migrations` table. Each migration is a module in
 * ./migrations exporting `up` and `down`, given a function that runs SQL. A PostgreSQL advisory lock keeps
 * two processes (two replicas starting at once) from migrating concurrently.
 */
import path from 'node:path';
import { Sequelize } from 'sequelize';
import type { Umzug } from 'umzug';

export type RunSql = (sql: string) => Promise<unknown>;
export type MigrationFn = (params: { name: string; context: RunSql }) => Promise<void>;

const MIGRATION_LOCK_ID = 4_857_301;

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * umzug (with its command-line kit) is loaded when migrations run, not when the package is: check_rules and
 * the services import @pi/db for the standalone settings alone, and umzug was a fifth of check_rules' start
 * (docs/operations/benchmarks.md).
 */
async function createMigrator(sequelize: Sequelize, log: (msg: string) => void): Promise<Umzug<RunSql>> {
  const { SequelizeStorage, Umzug } = await import('umzug');
  const runSql: RunSql = (sql) => sequelize.query(sql);
  return new Umzug<RunSql>({
    migrations: { glob: ['migrations/*.js', { cwd: path.join(__dirname) }] },
    // umzug calls a function-valued context to produce the context, hence the wrapper.
    context: () => runSql,
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: {
      info: (e) => log(`migration ${textOf(e.event)} ${textOf(e.name)}`),
      warn: (e) => log(JSON.stringify(e)),
      error: (e) => log(JSON.stringify(e)),
      debug: () => {},
    },
  });
}

/** Applies every pending migration and returns their names. */
export async function migrateUp(sequelize: Sequelize, log: (msg: string) => void = () => {}): Promise<string[]> {
  // The transaction pins one connection that holds the lock while the migrations run on others.
  return sequelize.transaction(async (transaction) => {
    await sequelize.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`, { transaction });
    const applied = await (await createMigrator(sequelize, log)).up();
    return applied.map((m) => m.name);
  });
}

export async function migrateDown(sequelize: Sequelize, log: (msg: string) => void = () => {}): Promise<string[]> {
  const reverted = await (await createMigrator(sequelize, log)).down();
  return reverted.map((m) => m.name);
}

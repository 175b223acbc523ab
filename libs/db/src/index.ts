/**
 * The database's schema and the standalone database (docs/architecture.md): the migrations and their runner
 * (umzug, `npm run migrate`), and the embedded PostgreSQL of `npm start` with its state file. The connection,
 * models and their helpers stay in @pi/common, which the HTTP kit needs; this package depends on it, never the
 * other way.
 */
export * from './migrator';
export * from './standalone';
export * from './standalone-settings';

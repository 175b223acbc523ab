/**
 * The database pool of a process, read at scrape time from Sequelize's pool (the plain `pg` hot paths borrow
 * their connections from it too): connections open, idle and in use, the limit, and callers waiting for one.
 * Waiting callers are the first sign that DATABASE_POOL_MAX is too small for the load.
 */
import { Gauge } from 'prom-client';
import type { Sequelize } from 'sequelize';
import type { MetricsRegistry } from './registry';

interface SequelizePool {
  size: number;
  available: number;
  using: number;
  waiting: number;
  maxSize: number;
}

/** The pool, once Sequelize has made it (it does on the first query). */
function poolOf(sequelize: Sequelize): SequelizePool | undefined {
  return (sequelize as unknown as { connectionManager?: { pool?: SequelizePool } }).connectionManager?.pool;
}

export function registerPoolMetrics(registry: MetricsRegistry, sequelize: Sequelize): void {
  const gauge = (name: string, help: string, read: (pool: SequelizePool) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const pool = poolOf(sequelize);
        this.set(pool ? read(pool) : 0);
      },
    });
  gauge('db_pool_size', 'Database connections open in this process (idle and in use).', (p) => p.size);
  gauge('db_pool_idle', 'Open database connections not in use.', (p) => p.available);
  gauge('db_pool_used', 'Database connections in use.', (p) => p.using);
  gauge('db_pool_waiting', 'Callers waiting for a database connection.', (p) => p.waiting);
  gauge('db_pool_max', 'The most database connections this process opens (DATABASE_POOL_MAX).', (p) => p.maxSize);
}

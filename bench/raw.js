'use strict';
/**
 * The raw baselines: what PostgreSQL alone does for the same work, driven from this process on plain `pg`
 * with as many connections as the system run has clients. Each connection runs `job(client, worker)` in a
 * loop for the given time; the result has the shape the report reads from autocannon's (requests per
 * second, latency percentiles in ms, counts).
 */
const { Pool } = require('pg');
const { percentile } = require('./stats');

/** A pool of `connections` clients, opened once per scenario and reused by its runs (so none pays connecting). */
async function openRawPool(databaseUrl, connections) {
  const pool = new Pool({ connectionString: databaseUrl, max: connections, application_name: 'pi-bench-raw' });
  const clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
  return {
    clients,
    async close() {
      for (const client of clients) client.release();
      await pool.end();
    },
  };
}

/** Runs `job` on every client of `raw` for `seconds`; answers {requests: {average, total}, latency: {p50, p99}, ok, errors}. */
async function runRaw(raw, seconds, job) {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const latencies = [];
  let ok = 0;
  let errors = 0;
  let firstError;
  const started = process.hrtime.bigint();
  await Promise.all(
    raw.clients.map(async (client, worker) => {
      while (process.hrtime.bigint() < deadline) {
        const t0 = process.hrtime.bigint();
        try {
          await job(client, worker);
          ok += 1;
        } catch (err) {
          errors += 1;
          firstError ??= err;
          await client.query('ROLLBACK').catch(() => {});
        }
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return {
    requests: { average: ok / elapsed, total: ok + errors },
    latency: { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) },
    ok,
    errors,
    firstError,
  };
}

module.exports = { openRawPool, runRaw };

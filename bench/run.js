'use strict';
/**
 * `npm run bench -- [scenario ...]`: seeds and loads the system with autocannon, then prints requests/s and
 * p50/p99 latency per scenario as a Markdown table. Scenarios: see scenarios.js (default: all of them).
 *
 * Environment: BENCH_URL (a running gateway on loopback; default: start the standalone system here),
 * BENCH_DURATION (seconds per scenario, default 10, at most 120), BENCH_CONNECTIONS (concurrent clients,
 * default 20), BENCH_WARMUP (seconds of unmeasured load first, default 2), BENCH_DATABASE_URL (the database
 * behind BENCH_URL, for the ANALYZE below), BENCH_ANALYZE=0 (skip it).
 *
 * After seeding, the run refreshes the planner statistics (ANALYZE) when it can reach the database, as
 * autovacuum would within a minute or so: the numbers are those of a settled system, not of the first
 * minute after a bulk load, when plans built on the empty tables' statistics can be much slower.
 */
const os = require('node:os');
const autocannon = require('autocannon');
const { Client } = require('pg');
const { client } = require('./client');
const { scenarios } = require('./scenarios');
const { openTarget } = require('./system');

const log = (message) => process.stderr.write(`[bench] ${message}\n`);

function setting(name, fallback, min, max) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, not ${raw}`);
  return value;
}

async function analyze(databaseUrl) {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('ANALYZE');
  } finally {
    await db.end();
  }
}

function load(url, request, connections, duration) {
  return autocannon({ url: `${url}${request.path}`, method: request.method, headers: request.headers, body: request.body, connections, duration, timeout: 10 });
}

async function main() {
  const names = process.argv.slice(2).filter((a) => a !== '--');
  if (names.includes('--help') || names.includes('-h')) {
    process.stdout.write(`usage: npm run bench -- [${Object.keys(scenarios).join('|')} ...]\n`);
    return;
  }
  const unknown = names.filter((n) => !scenarios[n]);
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`);
  const chosen = names.length ? names : Object.keys(scenarios);
  const duration = setting('BENCH_DURATION', 10, 1, 120);
  const connections = setting('BENCH_CONNECTIONS', 20, 1, 1000);
  const warmup = setting('BENCH_WARMUP', 2, 0, 60);

  const target = await openTarget(log);
  const stopOnSignal = () => {
    log('interrupted: stopping');
    target.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const rows = [];
  try {
    const api = client(target.url);
    for (const name of chosen) {
      const scenario = scenarios[name];
      log(`${name}: seeding`);
      const seeded = await scenario.seed(api, log);
      if (target.databaseUrl && process.env.BENCH_ANALYZE !== '0') await analyze(target.databaseUrl);
      else log(`${name}: planner statistics not refreshed (no database to reach, or BENCH_ANALYZE=0)`);
      const request = scenario.request(seeded);
      let succeeded = 0;
      if (warmup > 0) {
        log(`${name}: ${warmup} s warm-up`);
        succeeded += (await load(target.url, request, connections, warmup))['2xx'];
      }
      log(`${name}: ${duration} s with ${connections} connections`);
      const result = await load(target.url, request, connections, duration);
      succeeded += result['2xx'];
      const note = scenario.check ? await scenario.check(api, seeded, succeeded) : '';
      if (result.non2xx > 0) log(`${name}: ${result.non2xx} answers were not 2xx (rate limits? see "Benchmarks" in README.md)`);
      rows.push({ name, result, note });
    }
  } finally {
    await target.stop();
  }

  const cpus = os.cpus();
  process.stdout.write(`\nnode ${process.version}, ${cpus.length} × ${cpus[0] ? cpus[0].model.trim() : 'cpu'}, ${connections} connections, ${duration} s per scenario\n\n`);
  process.stdout.write('| scenario | requests/s | p50 ms | p99 ms | 2xx | non-2xx | errors | note |\n|---|---:|---:|---:|---:|---:|---:|---|\n');
  for (const { name, result, note } of rows) {
    process.stdout.write(
      `| ${name} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ${result['2xx']} | ${result.non2xx} | ${result.errors + result.timeouts} | ${note} |\n`,
    );
  }
  if (rows.some((r) => r.result.non2xx > 0 || r.result.errors > 0 || /MISMATCH/.test(r.note))) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`[bench] failed: ${err.stack || err.message}\n`);
  process.exit(1);
});

'use strict';
/**
 * `npm run bench -- [--only <scenario>[,<scenario>]] [--duration <s>] [--connections <n>[,<n>…]] [--pairs <n>]
 * [--warmup <s>]`: seeds the system, then runs each scenario's system load (autocannon through the gateway)
 * and its raw baseline (the same work on plain `pg`, or straight to the service) one after the other, `pairs`
 * times, and prints their ratio with the target beside it, latencies, and the CPU each process spent per
 * request. Scenarios: scenarios.js.
 *
 * Environment (defaults of the options, and where the system is): BENCH_DURATION, BENCH_CONNECTIONS,
 * BENCH_WARMUP, BENCH_PAIRS; BENCH_URL (a running gateway on loopback instead of a standalone system started
 * here) with BENCH_DATABASE_URL, BENCH_INVENTORY_URL, BENCH_INTERNAL_JWT_SECRET; BENCH_ANALYZE=0 skips the
 * ANALYZE after seeding.
 *
 * After seeding, the run refreshes the planner statistics (ANALYZE), as autovacuum would within a minute or
 * so: the numbers are those of a settled system, not of the first minute after a bulk load.
 */
const os = require('node:os');
const { parseArgs } = require('node:util');
const autocannon = require('autocannon');
const { Client } = require('pg');
const { client } = require('./client');
const cpu = require('./cpu');
const { openRawPool, runRaw } = require('./raw');
const { scenarios, seeds } = require('./scenarios');
const { median } = require('./stats');
const { openTarget } = require('./system');

const log = (message) => process.stderr.write(`[bench] ${message}\n`);

const USAGE = `usage: npm run bench -- [--only <scenario>[,…]] [--duration <seconds>] [--connections <n>[,<n>…]] [--pairs <n>] [--warmup <seconds>]
scenarios: ${Object.keys(scenarios).join(', ')}`;

function whole(name, raw, min, max) {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, not ${raw}`);
  return value;
}

function options(argv) {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    allowPositionals: true,
    options: {
      only: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      pairs: { type: 'string' },
      warmup: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  const env = process.env;
  const only = [...(values.only ? values.only.split(',') : []), ...positionals].map((s) => s.trim()).filter(Boolean);
  const unknown = only.filter((n) => !scenarios[n]);
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`);
  const connectionsRaw = values.connections ?? env.BENCH_CONNECTIONS;
  return {
    only: only.length ? only : Object.keys(scenarios),
    duration: whole('--duration', values.duration ?? env.BENCH_DURATION ?? 5, 1, 120),
    warmup: whole('--warmup', values.warmup ?? env.BENCH_WARMUP ?? 1, 0, 60),
    pairs: whole('--pairs', values.pairs ?? env.BENCH_PAIRS ?? 3, 1, 20),
    connections:
      connectionsRaw === undefined
        ? undefined
        : String(connectionsRaw)
            .split(',')
            .map((c) => whole('--connections', c.trim(), 1, 1000)),
  };
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

/** `request`: autocannon options; its `path` (when set) is appended to `base`. */
function autocannonRun(base, request, connections, duration) {
  const { path = '', url, ...rest } = request;
  return autocannon({ ...rest, url: `${url ?? base}${path}`, connections, duration, timeout: 10 });
}

/** One measured run of the system (autocannon) or of a baseline, with the CPU spent meanwhile. */
async function measured(ctx, warmup, duration, run) {
  if (warmup > 0) await run(warmup);
  const before = cpu.sample(ctx.target.rootPid);
  const result = await run(duration);
  const after = cpu.sample(ctx.target.rootPid);
  const requests = result.requests.total ?? result['2xx'] + result.non2xx;
  return { result, cpu: cpu.perRequest(before, after, requests) };
}

const failures = (result) => (result.non2xx || 0) + (result.errors || 0) + (result.timeouts || 0);

/** The `pairs` interleaved runs of one scenario at one connection count. */
async function compare(ctx, scenario, seed, connections, opts) {
  const systemRun = (seconds) => autocannonRun(ctx.target.url, scenario.system(seed), connections, seconds);
  let raw;
  let baselineRun;
  if (scenario.rawSql) {
    raw = await openRawPool(ctx.target.databaseUrl, connections);
    const job = scenario.rawSql(seed);
    baselineRun = (seconds) => runRaw(raw, seconds, job);
  } else {
    const request = scenario.rawHttp(seed, ctx.target);
    baselineRun = (seconds) => autocannonRun(request.url, request, connections, seconds);
  }
  const pairs = [];
  try {
    for (let i = 0; i < opts.pairs; i++) {
      // Alternate which goes first, so that a drift of the machine's load favours neither.
      const order = i % 2 === 0 ? ['system', 'raw'] : ['raw', 'system'];
      const pair = {};
      for (const which of order) pair[which] = await measured(ctx, opts.warmup, opts.duration, which === 'system' ? systemRun : baselineRun);
      pairs.push(pair);
      log(`  pair ${i + 1}: system ${Math.round(pair.system.result.requests.average)}/s, raw ${Math.round(pair.raw.result.requests.average)}/s`);
      if (pair.raw.result.firstError) log(`  raw baseline error: ${pair.raw.result.firstError.message}`);
    }
  } finally {
    await raw?.close();
  }
  const cpuMedian = (which) => {
    const names = new Set(pairs.flatMap((p) => Object.keys(p[which].cpu)));
    return Object.fromEntries([...names].map((n) => [n, median(pairs.map((p) => p[which].cpu[n] ?? 0))]));
  };
  const of = (which, f) => median(pairs.map((p) => f(p[which].result)));
  return {
    connections,
    system: {
      rps: of('system', (r) => r.requests.average),
      p50: of('system', (r) => r.latency.p50),
      p99: of('system', (r) => r.latency.p99),
      cpu: cpuMedian('system'),
    },
    raw: { rps: of('raw', (r) => r.requests.average), p50: of('raw', (r) => r.latency.p50), p99: of('raw', (r) => r.latency.p99), cpu: cpuMedian('raw') },
    ratio: median(pairs.map((p) => p.system.result.requests.average / p.raw.result.requests.average)),
    failures: pairs.reduce((n, p) => n + failures(p.system.result) + failures(p.raw.result), 0),
  };
}

const fmt = (n, digits = 0) => (n === undefined ? '—' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const latency = (s) => `${fmt(s.p50, 1)} / ${fmt(s.p99, 1)}`;

function targetCell(scenario, row) {
  const t = scenario.target;
  if (t.ratio !== undefined) return `≥ ${t.ratio.toFixed(2)} ${row.ratio >= t.ratio ? 'met' : 'NOT MET'}`;
  return `≤ ${t.seconds} s ${row.seconds <= t.seconds ? 'met' : 'NOT MET'}`;
}

const PROCESSES = ['gateway', 'inventory', 'qr', 'monitor', 'notifier', 'postgres', 'bench'];

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const loadAtStart = loadAverage();

function printReport(rows, opts, target) {
  const cpus = os.cpus();
  const out = (s) => process.stdout.write(s);
  out(
    `\nnode ${process.version}, ${cpus.length} × ${cpus[0] ? cpus[0].model.trim() : 'cpu'}, load average ${loadAtStart} at the start, ${loadAverage()} at the end ` +
      `(1, 5, 15 min; other work on the machine counts); ` +
      `${opts.duration} s per run after ${opts.warmup} s of warm-up, ${opts.pairs} interleaved pairs per row (medians)\n\n`,
  );
  out('| scenario | connections | system req/s | raw req/s | ratio | target | system p50 / p99 ms | raw p50 / p99 ms | note |\n');
  out('|---|---:|---:|---:|---:|---|---:|---:|---|\n');
  for (const { name, scenario, row } of rows) {
    if (row.skipped) out(`| ${name} | | | | | | | | skipped: ${row.skipped} |\n`);
    else if (scenario.timed) out(`| ${name} | 1 | ${fmt(row.seconds, 2)} s | — | — | ${targetCell(scenario, row)} | | | ${row.note} |\n`);
    else {
      const note = [row.failures ? `${row.failures} FAILED REQUESTS` : '', row.note || ''].filter(Boolean).join('; ');
      out(
        `| ${name} | ${row.connections} | ${fmt(row.system.rps)} | ${fmt(row.raw.rps)} | ${fmt(row.ratio, 2)} | ${targetCell(scenario, row)} | ` +
          `${latency(row.system)} | ${latency(row.raw)} | ${note} |\n`,
      );
    }
  }
  const hot = rows.filter((r) => r.name === 'hot-row' && !r.row.skipped);
  if (hot.length > 1) {
    const low = hot[0].row;
    const high = hot[hot.length - 1].row;
    const kept = high.system.rps / low.system.rps;
    out(
      `\nhot-row from ${low.connections} to ${high.connections} connections: system ${fmt(low.system.rps)} → ${fmt(high.system.rps)}/s ` +
        `(${fmt(kept, 2)}×; target: no drop, ≥ 0.95 allowing for noise: ${kept >= 0.95 ? 'met' : 'NOT MET'})\n`,
    );
  }
  out(`\nCPU per request, µs (median of the pairs)${target.rootPid ? '' : ' — only this process is known with BENCH_URL'}\n\n`);
  out(`| scenario | connections | run | ${PROCESSES.join(' | ')} | total |\n|---|---:|---|${PROCESSES.map(() => '---:|').join('')}---:|\n`);
  for (const { name, scenario, row } of rows) {
    if (row.skipped || scenario.timed) continue;
    for (const which of ['system', 'raw']) {
      const cells = PROCESSES.map((p) => fmt(row[which].cpu[p]));
      const total = Object.values(row[which].cpu).reduce((a, b) => a + (b || 0), 0);
      out(`| ${name} | ${row.connections} | ${which} | ${cells.join(' | ')} | ${fmt(total)} |\n`);
    }
  }
}

async function main() {
  const opts = options(process.argv.slice(2));
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const target = await openTarget(log);
  const stopOnSignal = () => {
    log('interrupted: stopping');
    target.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const ctx = { target, api: client(target.url), log, seeded: {}, db: undefined };
  const rows = [];
  try {
    if (target.databaseUrl) {
      ctx.db = new Client({ connectionString: target.databaseUrl });
      await ctx.db.connect();
    }
    for (const name of opts.only) {
      const scenario = scenarios[name];
      const missing = scenario.needs.filter((n) => !target[n]);
      if (missing.length) {
        rows.push({ name, scenario, row: { skipped: `needs ${missing.join(', ')} (see bench/system.js)` } });
        continue;
      }
      if (!ctx.seeded[scenario.seed]) {
        log(`${name}: seeding ${scenario.seed}`);
        ctx.seeded[scenario.seed] = await seeds[scenario.seed](ctx);
        if (target.databaseUrl && process.env.BENCH_ANALYZE !== '0') await analyze(target.databaseUrl);
      }
      const seed = ctx.seeded[scenario.seed];
      if (scenario.timed) {
        log(`${name}: timing`);
        rows.push({ name, scenario, row: await scenario.run(ctx, seed) });
        continue;
      }
      for (const connections of opts.connections ?? scenario.connections ?? [20]) {
        log(`${name}: ${connections} connections, ${opts.pairs} × (system, raw), ${opts.duration} s each`);
        const row = await compare(ctx, scenario, seed, connections, opts);
        rows.push({ name, scenario, row });
      }
      if (scenario.check) {
        const note = await scenario.check(ctx, seed);
        for (const r of rows.filter((r) => r.name === name)) r.row.note = note;
      }
    }
  } finally {
    await ctx.db?.end().catch(() => {});
    await target.stop();
  }
  printReport(rows, opts, target);
  const broken = rows.some(({ row }) => row.failures > 0 || row.failed || /MISMATCH/.test(row.note || ''));
  if (broken) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`[bench] failed: ${err.stack || err.message}\n`);
  process.exit(1);
});

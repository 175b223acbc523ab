'use strict';
/**
 * The system under benchmark: the gateway at BENCH_URL when set, otherwise `npm start`'s standalone launcher
 * started here on free loopback ports with a temporary DATA_DIR (embedded PostgreSQL), stopped and removed
 * afterwards. Needs a build (`npm run bench` builds first).
 *
 * Besides the gateway's URL the scenarios need the database (raw baselines), the inventory service's URL and
 * the internal token secret (the gateway hop's direct calls), the DATA_DIR (check_rules) and the launcher's
 * pid (CPU per process). A standalone system has them all; with BENCH_URL they come from BENCH_DATABASE_URL,
 * BENCH_INVENTORY_URL and BENCH_INTERNAL_JWT_SECRET, and the scenarios that lack one are skipped. Every
 * address must be on loopback.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const LAUNCHER = path.join(ROOT, 'tools/dist/src/standalone/main.js');
const READY_LINE = 'ready: gateway listening at';
const READY_TIMEOUT_MS = 120_000;

/** Starts the standalone launcher and resolves once it prints its ready line. */
async function startStandalone(log) {
  if (!fs.existsSync(LAUNCHER)) throw new Error(`${LAUNCHER} is missing: run \`npm run build\` first (npm run bench does)`);
  // Required only now: libs/db is compiled by the same build as the launcher.
  const { databaseUrlOf, freePort, readStandaloneState } = require('@pi/db');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-bench-'));
  const ports = new Set();
  while (ports.size < 6) ports.add(await freePort());
  const [gateway, inventory, qr, monitor, notifier, pg] = ports;
  const env = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'REDIS_URL',
    'JWT_SECRET',
    'INTERNAL_JWT_SECRET',
    'SECRET_ENCRYPTION_KEY',
    'PUBLIC_BASE_URL',
    'TEST_DATABASE',
    'NODE_ENV',
  ]) {
    delete env[name];
  }
  Object.assign(env, {
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn',
    // The benchmark measures the service, not the rate limiter (the widget burst limit is 100/min per key).
    RATE_LIMITS: 'off',
    GATEWAY_PORT: String(gateway),
    INVENTORY_PORT: String(inventory),
    QR_PORT: String(qr),
    MONITOR_PORT: String(monitor),
    NOTIFIER_PORT: String(notifier),
    EMBEDDED_PG_PORT: String(pg),
  });
  log(`starting the standalone system (DATA_DIR ${dataDir}, gateway port ${gateway})`);
  const child = spawn(process.execPath, [LAUNCHER], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk) => (err += chunk.toString('utf8')));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!out.includes(READY_LINE)) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the standalone system did not become ready\n--- stdout ---\n${out}\n--- stderr ---\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const state = readStandaloneState(dataDir);
  return {
    url: `http://127.0.0.1:${gateway}`,
    databaseUrl: databaseUrlOf(state),
    inventoryUrl: `http://127.0.0.1:${inventory}`,
    internalJwtSecret: state.secrets.INTERNAL_JWT_SECRET,
    dataDir,
    rootPid: child.pid,
    stop,
  };
}

const LOOPBACK = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/** `value` (a URL) when its host is on loopback; throws naming `name` otherwise. */
function loopbackUrl(name, value) {
  if (!value) return undefined;
  const { hostname } = new URL(value);
  if (!LOOPBACK.includes(hostname) && !/^127\./.test(hostname)) throw new Error(`${name} must be a loopback address, not ${hostname}`);
  return value.replace(/\/+$/, '');
}

/**
 * The target: BENCH_URL as is (nothing to stop; its database is BENCH_DATABASE_URL when given), or a
 * standalone system of our own.
 */
async function openTarget(log) {
  if (process.env.BENCH_URL) {
    const url = loopbackUrl('BENCH_URL', process.env.BENCH_URL);
    log(`targeting ${url}`);
    return {
      url,
      databaseUrl: loopbackUrl('BENCH_DATABASE_URL', process.env.BENCH_DATABASE_URL),
      inventoryUrl: loopbackUrl('BENCH_INVENTORY_URL', process.env.BENCH_INVENTORY_URL),
      internalJwtSecret: process.env.BENCH_INTERNAL_JWT_SECRET || undefined,
      // The process whose descendants are the system (e.g. the shell that started it), for CPU per process.
      rootPid: process.env.BENCH_SYSTEM_PID ? Number(process.env.BENCH_SYSTEM_PID) : undefined,
      stop: async () => {},
    };
  }
  return startStandalone(log);
}

module.exports = { openTarget };

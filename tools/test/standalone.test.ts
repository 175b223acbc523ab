/**
 * The `npm start` launcher and the admin CLI, end to end, as separate processes: embedded PostgreSQL in a
 * temporary DATA_DIR (no DATABASE_URL, no REDIS_URL), five services on free ports, registration and login
 * through the gateway, a clean stop (exit 0, no PostgreSQL left behind), the admin CLI on the stopped
 * system, and a second start on the same DATA_DIR that still has everything.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { chromium } from 'playwright-core';
import { freePort } from '@pi/common';
import { CHROMIUM_ARGS, CHROMIUM_PATH, loudBanner } from './chromium';

const ROOT = path.resolve(__dirname, '../../..');
const LAUNCHER = path.join(ROOT, 'tools/dist/src/standalone/main.js');
const ADMIN_CLI = path.join(ROOT, 'services/gateway/dist/src/cli/admin.js');
const READY_LINE = 'ready: gateway listening at';
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 60_000;

interface Launcher {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

function startLauncher(env: NodeJS.ProcessEnv): Launcher {
  const child = spawn(process.execPath, [LAUNCHER], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

function describeOutput(launcher: Launcher): string {
  return `\n--- stdout ---\n${launcher.stdout()}\n--- stderr ---\n${launcher.stderr()}`;
}

async function waitForReady(launcher: Launcher): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!launcher.stdout().includes(READY_LINE)) {
    if (launcher.child.exitCode !== null || launcher.child.signalCode !== null) {
      throw new Error(`launcher exited (${launcher.child.exitCode ?? launcher.child.signalCode}) before it was ready${describeOutput(launcher)}`);
    }
    if (Date.now() > deadline) throw new Error(`launcher not ready after ${READY_TIMEOUT_MS} ms${describeOutput(launcher)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** SIGTERM (or Ctrl-C's SIGINT), then wait for the exit; SIGKILL (and a failed test) if it takes too long. */
async function stopLauncher(launcher: Launcher, signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  launcher.child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS)));
  const result = await Promise.race([launcher.exited, timedOut]);
  clearTimeout(timer);
  if (result === 'timeout') {
    launcher.child.kill('SIGKILL');
    throw new Error(`launcher did not exit within ${STOP_TIMEOUT_MS} ms of ${signal}${describeOutput(launcher)}`);
  }
  return result;
}

function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 90_000, script = ADMIN_CLI): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`admin ${args.join(' ')} did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** PIDs of processes whose command line names the cluster directory (the postmaster runs `postgres -D <dir>`). */
function postgresProcessesOf(clusterDir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(clusterDir) && /postgres/.test(line))
    .map((line) => line.trim().split(/\s+/)[0]);
}

/** PIDs of processes started with DATA_DIR=<dataDir> in their environment: the launcher's services, the CLI. */
function processesWithDataDir(dataDir: string): number[] {
  if (!fs.existsSync('/proc')) return [];
  const marker = `\0DATA_DIR=${dataDir}\0`;
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (`\0${fs.readFileSync(`/proc/${entry}/environ`, 'latin1')}`.includes(marker)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

function describeProcesses(pids: number[]): string {
  return pids.map((pid) => `${pid}: ${fs.existsSync(`/proc/${pid}/cmdline`) ? fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ') : '?'}`).join('\n');
}

/** Nothing of the system is left running: no PostgreSQL on the cluster, no service, no CLI. */
function expectNothingLeft(dataDir: string) {
  const clusterDir = path.join(dataDir, 'postgres');
  expect(postgresProcessesOf(clusterDir), `postgres processes still running for ${clusterDir}`).to.deep.equal([]);
  expect(fs.existsSync(path.join(clusterDir, 'postmaster.pid')), 'postmaster.pid left behind').to.equal(false);
  const left = processesWithDataDir(dataDir);
  expect(left, `processes still running with DATA_DIR=${dataDir}:\n${describeProcesses(left)}`).to.deep.equal([]);
}

async function http(baseUrl: string, method: string, urlPath: string, opts: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${urlPath}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: any = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
  return { status: res.status, body };
}

async function logIn(baseUrl: string, username: string, password: string): Promise<string> {
  const res = await http(baseUrl, 'POST', '/api/token/', { body: { username, password } });
  expect(res.status, `login of ${username}: ${JSON.stringify(res.body)}`).to.equal(200);
  expect(res.body.access).to.be.a('string').that.is.not.empty;
  return res.body.access;
}

describe('standalone launcher and admin CLI (separate processes, embedded PostgreSQL)', function () {
  this.timeout(180_000);

  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let baseUrl: string;
  let launcher: Launcher | undefined;

  const first = { company: `Standalone Co ${process.pid}`, username: `first_admin_${process.pid}`, password: 'first-admin-password-1' };
  const cli = { company: `CLI Co ${process.pid}`, username: `cli_admin_${process.pid}` };
  let cliOutput: { company: { id: string; name: string }; user: { id: string; username: string }; password: string; api_key: { id: string; key: string; tier: string } };

  before(async function () {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-standalone-test-'));
    const [gateway, inventory, qr, monitor, notifier, pg] = await distinctFreePorts(6);
    env = { ...process.env };
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'JWT_SECRET', 'INTERNAL_JWT_SECRET', 'SECRET_ENCRYPTION_KEY', 'PUBLIC_BASE_URL', 'TEST_DATABASE', 'NODE_ENV']) {
      delete env[name];
    }
    Object.assign(env, {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      GATEWAY_PORT: String(gateway),
      INVENTORY_PORT: String(inventory),
      QR_PORT: String(qr),
      MONITOR_PORT: String(monitor),
      NOTIFIER_PORT: String(notifier),
      EMBEDDED_PG_PORT: String(pg),
    });
    baseUrl = `http://127.0.0.1:${gateway}`;
  });

  after(async function () {
    this.timeout(60_000);
    if (launcher && launcher.child.exitCode === null && launcher.child.signalCode === null) {
      launcher.child.kill('SIGTERM');
      const timer = setTimeout(() => launcher?.child.kill('SIGKILL'), 30_000);
      await launcher.exited;
      clearTimeout(timer);
    }
    if (dataDir) {
      // A cluster a failed test left running: stop its postmaster by the pid it recorded (fast shutdown).
      const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
      const postmaster = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]) : 0;
      if (postmaster > 0) {
        try {
          process.kill(postmaster, 'SIGINT');
        } catch {
          // already gone
        }
        for (let i = 0; i < 100 && fs.existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
      }
      // Anything else this suite started with its DATA_DIR (services of a launcher that died, a stuck CLI).
      for (const pid of processesWithDataDir(dataDir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('starts on an empty DATA_DIR, serves registration and the two VIRTUAL locations, and stops cleanly on SIGTERM', async () => {
    launcher = startLauncher(env);
    await waitForReady(launcher);
    expect(launcher.stdout()).to.include(`starting embedded PostgreSQL in ${path.join(dataDir, 'postgres')} (port ${env.EMBEDDED_PG_PORT})`);
    expect(launcher.stdout()).to.match(/applied migrations: /);
    const state = JSON.parse(fs.readFileSync(path.join(dataDir, 'standalone.json'), 'utf8'));
    expect(state.postgres.port).to.equal(Number(env.EMBEDDED_PG_PORT));
    expect(fs.statSync(path.join(dataDir, 'standalone.json')).mode & 0o777).to.equal(0o600);

    const reg = await http(baseUrl, 'POST', '/api/v1/register/', {
      body: { company_name: first.company, username: first.username, password: first.password },
    });
    expect(reg.status, JSON.stringify(reg.body)).to.equal(201);
    expect(reg.body.company.name).to.equal(first.company);
    expect(reg.body.user.username).to.equal(first.username);
    expect(reg.body.api_key.key).to.be.a('string').that.is.not.empty;

    const token = await logIn(baseUrl, first.username, first.password);
    const locations = await http(baseUrl, 'GET', '/api/v1/locations/', { token });
    expect(locations.status, JSON.stringify(locations.body)).to.equal(200);
    expect(locations.body.count).to.equal(2);
    const virtual = (locations.body.results as { name: string; type: string; is_system: boolean }[]).filter((l) => l.type === 'VIRTUAL');
    expect(virtual.map((l) => l.name).sort()).to.deep.equal(['Inbound', 'Outbound']);
    expect(virtual.every((l) => l.is_system)).to.equal(true);

    const unauthenticated = await http(baseUrl, 'GET', '/api/v1/locations/');
    expect(unauthenticated.status).to.equal(401);

    const exit = await stopLauncher(launcher);
    expect(exit, describeOutput(launcher)).to.deep.equal({ code: 0, signal: null });
    expect(launcher.stdout()).to.include('[standalone] stopped');
    expectNothingLeft(dataDir);
  });

  it('admin CLI creates a company on the stopped system and sets an API key tier', async () => {
    const created = await runCli(['create-company', '--name', cli.company, '--username', cli.username], env);
    expect(created.code, created.stderr).to.equal(0);
    cliOutput = JSON.parse(created.stdout);
    expect(cliOutput.company.name).to.equal(cli.company);
    expect(cliOutput.company.id).to.match(/^[0-9a-f-]{36}$/);
    expect(cliOutput.user.username).to.equal(cli.username);
    expect(cliOutput.password).to.be.a('string').with.length.greaterThan(8);
    expect(cliOutput.api_key.key).to.be.a('string').that.is.not.empty;
    expect(cliOutput.api_key.id).to.match(/^[0-9a-f-]{36}$/);
    expect(cliOutput.api_key.tier).to.not.equal('premium');
    // The CLI started the embedded PostgreSQL for itself; it must have stopped it again.
    expectNothingLeft(dataDir);

    const premium = await runCli(['set-tier', cliOutput.api_key.id, 'premium'], env);
    expect(premium.code, premium.stderr).to.equal(0);
    expect(JSON.parse(premium.stdout)).to.deep.equal({ id: cliOutput.api_key.id, tier: 'premium' });

    const gold = await runCli(['set-tier', cliOutput.api_key.id, 'gold'], env);
    expect(gold.code, `stdout: ${gold.stdout}`).to.not.equal(0);
    expect(gold.code).to.not.equal(null);
    // The error names the argument and the valid tiers (and is a one-line message, not a stack trace).
    expect(gold.stderr).to.match(/^admin: /);
    expect(gold.stderr).to.include('{"tier":"tier must be one of [free, standard, premium]"}');
    expect(gold.stderr).to.not.match(/\n\s+at /);
    expect(gold.stdout).to.not.include('"tier"');
    expectNothingLeft(dataDir);
  });

  it('starts again on the same DATA_DIR with both companies and the new tier, and stops cleanly on SIGINT', async () => {
    expect(cliOutput, 'the CLI test must have run').to.not.equal(undefined);
    launcher = startLauncher(env);
    await waitForReady(launcher);
    expect(launcher.stdout()).to.include('database schema is up to date');

    const firstToken = await logIn(baseUrl, first.username, first.password);
    const cliToken = await logIn(baseUrl, cli.username, cliOutput.password);

    const keys = await http(baseUrl, 'GET', '/api/v1/api-keys/', { token: cliToken });
    expect(keys.status, JSON.stringify(keys.body)).to.equal(200);
    const key = (keys.body.results as { id: string; tier: string }[]).find((k) => k.id === cliOutput.api_key.id);
    expect(key, JSON.stringify(keys.body)).to.not.equal(undefined);
    expect(key!.tier).to.equal('premium');

    // Each company sees only its own keys.
    const firstKeys = await http(baseUrl, 'GET', '/api/v1/api-keys/', { token: firstToken });
    expect(firstKeys.status, JSON.stringify(firstKeys.body)).to.equal(200);
    expect((firstKeys.body.results as { id: string }[]).map((k) => k.id)).to.not.include(cliOutput.api_key.id);
    expect(firstKeys.body.count).to.be.greaterThan(0);

    // The pages of the system as the README starts it: the dashboard signs in, the widget page loads.
    await expectPagesWork(baseUrl, first.username, first.password);

    // check_rules finds the running standalone database and its secrets through DATA_DIR alone.
    const checkRules = await runCli([], env, 90_000, path.join(ROOT, 'services/monitor/dist/src/check-rules/cli.js'));
    expect(checkRules.code, checkRules.stderr).to.equal(0);
    expect(checkRules.stdout).to.match(/^companies: 2$/m);
    expect(checkRules.stdout).to.include('deliveries sent: 0');

    const exit = await stopLauncher(launcher, 'SIGINT');
    expect(exit, describeOutput(launcher)).to.deep.equal({ code: 0, signal: null });
    expect(launcher.stdout()).to.include('[standalone] stopped');
    expectNothingLeft(dataDir);
  });
});

/**
 * Signs in to the dashboard and opens the widget (which asks for a scan), in Debian's headless Chromium
 * (skipped, loudly, where it is not installed; .ci/run installs it). Only the launcher's gateway is reachable.
 */
async function expectPagesWork(baseUrl: string, username: string, password: string): Promise<void> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    loudBanner(`CHROMIUM IS NOT INSTALLED at ${CHROMIUM_PATH}: the standalone pages check is SKIPPED`);
    return;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const outside: string[] = [];
    await page.route('**/*', (route) => (new URL(route.request().url()).origin === baseUrl ? route.continue() : (outside.push(route.request().url()), route.abort())));
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${baseUrl}/dashboard/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Products' }).waitFor({ timeout: 15_000 });

    const stored = await page.evaluate(() => (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage.getItem('pi-dashboard.tokens'));
    expect(Object.keys(JSON.parse(stored ?? '{}')), 'the dashboard keeps its tokens in sessionStorage').to.include('access');

    // The widget without a scan token (or an embedding key) asks for a scan.
    await page.goto(`${baseUrl}/widget/`);
    await page.getByRole('heading', { name: 'Scan a QR code' }).waitFor({ timeout: 15_000 });
    expect(errors).to.deep.equal([]);
    expect(outside).to.deep.equal([]);
  } finally {
    await browser.close();
  }
}

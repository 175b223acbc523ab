/**
 * The `npm start` launcher and the command-line tools as separate processes, for the standalone suites:
 * start, wait until ready, stop (and check nothing is left running), run a CLI, talk to the gateway.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { freePort } from '@pi/db';

export const ROOT = path.resolve(__dirname, '../../..');
export const LAUNCHER = path.join(ROOT, 'tools/dist/src/standalone/main.js');
export const ADMIN_CLI = path.join(ROOT, 'services/gateway/dist/src/cli/admin.js');
export const CHECK_RULES_CLI = path.join(ROOT, 'services/monitor/dist/src/check-rules/cli.js');
export const MIGRATE_CLI = path.join(ROOT, 'libs/db/dist/src/migrate-cli.js');
export const VERIFY_STOCK_CLI = path.join(ROOT, 'services/inventory/dist/src/cli/verify-stock.js');
export const READY_LINE = 'ready: gateway listening at';
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 60_000;

export interface Launcher {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export function startLauncher(env: NodeJS.ProcessEnv): Launcher {
  const child = spawn(process.execPath, [LAUNCHER], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

export function describeOutput(launcher: Launcher): string {
  return `\n--- stdout ---\n${launcher.stdout()}\n--- stderr ---\n${launcher.stderr()}`;
}

export async function waitForReady(launcher: Launcher): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!launcher.stdout().includes(READY_LINE)) {
    if (launcher.child.exitCode !== null || launcher.child.signalCode !== null) {
      throw new Error(`launcher exited (${launcher.child.exitCode ?? launcher.child.signalCode}) before it was ready${describeOutput(launcher)}`);
    }
    if (Date.now() > deadline) throw new Error(`launcher not ready after ${READY_TIMEOUT_MS} ms${describeOutput(launcher)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** How the launcher exited, if it does within `ms`; else a sentence saying it did not. */
export async function exitWithin(launcher: Launcher, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = `still running after ${ms / 1000} s`;
  const timedOut = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(late), ms)));
  try {
    return await Promise.race([launcher.exited, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM (or Ctrl-C's SIGINT), then wait for the exit; SIGKILL (and a failed test) if it takes too long. */
export async function stopLauncher(launcher: Launcher, signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  launcher.child.kill(signal);
  const result = await exitWithin(launcher, STOP_TIMEOUT_MS);
  if (typeof result === 'string') {
    launcher.child.kill('SIGKILL');
    throw new Error(`launcher did not exit within ${STOP_TIMEOUT_MS} ms of ${signal}${describeOutput(launcher)}`);
  }
  return result;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 90_000, script = ADMIN_CLI): Promise<CliResult> {
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
export function postgresProcessesOf(clusterDir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(clusterDir) && /postgres/.test(line))
    .map((line) => line.trim().split(/\s+/)[0]);
}

/** PIDs of processes started with DATA_DIR=<dataDir> in their environment: the launcher's services, the CLI. */
export function processesWithDataDir(dataDir: string): number[] {
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

export function describeProcesses(pids: number[]): string {
  return pids
    .map((pid) => `${pid}: ${fs.existsSync(`/proc/${pid}/cmdline`) ? fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ') : '?'}`)
    .join('\n');
}

/**
 * Waits up to `timeoutMs` for no process of the system to be left (no PostgreSQL on the cluster, no service,
 * no CLI), and says which are. PostgreSQL's other processes end a moment after their postmaster is killed.
 */
export async function processesLeftAfter(dataDir: string, timeoutMs: number): Promise<string> {
  const clusterDir = path.join(dataDir, 'postgres');
  const left = () => [...new Set([...postgresProcessesOf(clusterDir).map(Number), ...processesWithDataDir(dataDir)])];
  const deadline = Date.now() + timeoutMs;
  while (left().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return describeProcesses(left());
}

/** Nothing of the system is left running: no PostgreSQL on the cluster, no service, no CLI. */
export function expectNothingLeft(dataDir: string) {
  const clusterDir = path.join(dataDir, 'postgres');
  expect(postgresProcessesOf(clusterDir), `postgres processes still running for ${clusterDir}`).to.deep.equal([]);
  expect(fs.existsSync(path.join(clusterDir, 'postmaster.pid')), 'postmaster.pid left behind').to.equal(false);
  const left = processesWithDataDir(dataDir);
  expect(left, `processes still running with DATA_DIR=${dataDir}:\n${describeProcesses(left)}`).to.deep.equal([]);
}

export async function http(baseUrl: string, method: string, urlPath: string, opts: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${urlPath}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: any = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
  return { status: res.status, body };
}

export async function logIn(baseUrl: string, username: string, password: string): Promise<string> {
  const res = await http(baseUrl, 'POST', '/api/token/', { body: { username, password } });
  expect(res.status, `login of ${username}: ${JSON.stringify(res.body)}`).to.equal(200);
  expect(res.body.access).to.be.a('string').that.is.not.empty;
  return res.body.access;
}

/** After a suite: the launcher stopped, a cluster or process it left behind stopped, DATA_DIR removed. */
export async function cleanUp(dataDir: string | undefined, launcher: Launcher | undefined): Promise<void> {
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
}

/**
 * Real processes for the deployment suites: start one (a service's entry point, or the image's `pi` command),
 * wait until it listens, signal it, and see how it ended. Plus the few API calls the suites make, with plain
 * fetch against whichever gateway they started.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { eventually, sleep } from '../../../support/wait';
import { ROOT } from './files';

export interface RunningProcess {
  name: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` and waits for the exit (SIGKILL and an error after `timeoutMs`). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; afterMs: number }>;
}

/**
 * Starts `command args` with exactly `env` (plus PATH) and, unless `waitFor` is false, waits for the
 * `"msg":"listening"` log line of libs/common's serve().
 */
export async function startProcess(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  opts: { cwd?: string; waitFor?: RegExp | false; timeoutMs?: number } = {},
): Promise<RunningProcess> {
  const child = spawn(command, args, { cwd: opts.cwd ?? ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const running: RunningProcess = {
    name,
    child,
    output: () => out,
    exited,
    stop: async (signal = 'SIGTERM', timeoutMs = 30_000) => {
      const sent = Date.now();
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timeout = sleep(timeoutMs).then(() => 'timeout' as const);
      const result = await Promise.race([exited, timeout]);
      if (result === 'timeout') {
        child.kill('SIGKILL');
        throw new Error(`${name} did not exit within ${timeoutMs} ms of ${signal}:\n${out}`);
      }
      return { ...result, afterMs: Date.now() - sent };
    },
  };
  const waitFor = opts.waitFor === undefined ? /"msg":"listening"/ : opts.waitFor;
  if (waitFor) {
    await eventually(
      () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${out}`);
        return waitFor.test(out);
      },
      `${name} to start`,
      opts.timeoutMs ?? 20_000,
    );
  }
  return running;
}

/** Stops every process still running, without waiting long (cleanup after a failed test). */
export async function killAll(processes: RunningProcess[]): Promise<void> {
  for (const p of processes.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) await p.stop('SIGKILL', 5_000).catch(() => {});
  }
}

// ---- API calls, plain fetch --------------------------------------------------------------------------------

export interface Json {
  status: number;
  body: any;
  headers: Headers;
}

export async function call(baseUrl: string, method: string, path: string, opts: { token?: string; apiKey?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Json> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), redirect: 'manual' });
  const text = await res.text();
  const body = (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text;
  return { status: res.status, body, headers: res.headers };
}

export function expectStatus(res: Json, status: number, what: string): Json {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${typeof res.body === 'string' ? res.body.slice(0, 500) : JSON.stringify(res.body)}`);
  return res;
}

export interface Company {
  id: string;
  name: string;
  username: string;
  password: string;
  userId: string;
  token: string;
  refresh: string;
  apiKey: string;
  apiKeyId: string;
}

/** Registers a company through a gateway and logs its admin in. */
export async function registerCompany(gatewayUrl: string): Promise<Company> {
  const suffix = randomBytes(5).toString('hex');
  const username = `deploy_${suffix}`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const name = `Deployment ${suffix}`;
  const registered = expectStatus(await call(gatewayUrl, 'POST', '/api/v1/register/', { body: { company_name: name, username, password } }), 201, 'registration');
  const tokens = expectStatus(await call(gatewayUrl, 'POST', '/api/token/', { body: { username, password } }), 200, 'login');
  return {
    id: registered.body.company.id,
    name,
    username,
    password,
    userId: registered.body.user.id,
    token: tokens.body.access,
    refresh: tokens.body.refresh,
    apiKey: registered.body.api_key.key,
    apiKeyId: registered.body.api_key.id,
  };
}

/** A STANDARD product (with `engine_config` extras such as min_stock) and a warehouse, through a gateway. */
export async function productAndLocation(gatewayUrl: string, company: Company, engineConfig: Record<string, unknown> = {}) {
  const sku = `SKU-${randomBytes(4).toString('hex')}`;
  const product = expectStatus(
    await call(gatewayUrl, 'POST', '/api/v1/product-models/', {
      token: company.token,
      body: { sku, name: `Widget ${sku}`, profile: 'STANDARD', engine_config: { engine_type: 'counter', ...engineConfig } },
    }),
    201,
    'product',
  ).body as { id: string; sku: string; name: string };
  const location = expectStatus(
    await call(gatewayUrl, 'POST', '/api/v1/locations/', { token: company.token, body: { name: `Warehouse ${sku}`, type: 'WAREHOUSE' } }),
    201,
    'location',
  ).body as { id: string; name: string };
  return { product, location };
}

/**
 * A private `redis-server` for the tests that stop Redis under a running gateway (the shared Redis of
 * support/redis.ts must never be stopped). It listens on a free loopback port with persistence off and its
 * own temporary directory; `kill()` stops it the hard way (SIGKILL) and `start()` brings it back on the same
 * port, empty. Suites that need one call `requireRedisServer` first: CI may have no `redis-server` binary.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import IORedis, { type Redis } from 'ioredis';
import { freePort } from '@pi/db';
import { redisAvailable } from './redis';
import { skipLoudly } from './skip';
import { eventually } from './wait';

export const REDIS_SERVER_BINARY = process.env.TEST_REDIS_SERVER ?? 'redis-server';

export function redisServerInstalled(): boolean {
  const probe = spawnSync(REDIS_SERVER_BINARY, ['--version'], { encoding: 'utf8', timeout: 5000 });
  return probe.status === 0 && /Redis server/i.test(probe.stdout);
}

/** In a suite's `before` (or a test): skips, loudly, when there is no `redis-server` to start. */
export function requireRedisServer(ctx: Mocha.Context, suite: string): void {
  if (!redisServerInstalled()) skipLoudly(ctx, `NO ${REDIS_SERVER_BINARY} BINARY ON THIS MACHINE: SKIPPING "${suite}"`);
}

export class PrivateRedis {
  private child?: ChildProcess;
  private output = '';

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  /** Starts a fresh server on a free port and waits until it answers PING. */
  static async start(): Promise<PrivateRedis> {
    const server = new PrivateRedis(await freePort(), mkdtempSync(path.join(os.tmpdir(), 'pi-test-redis-')));
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the server printed (for failure messages). */
  get log(): string {
    return this.output;
  }

  /** (Re)starts the server on its port, empty (no persistence), and waits until it answers PING. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`the private Redis on port ${this.port} is already running`);
    const child = spawn(REDIS_SERVER_BINARY, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const exited = new Promise<never>((_, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => reject(new Error(`redis-server exited (${signal ?? code}) while starting:\n${this.output}`)));
    });
    exited.catch(() => {});
    await Promise.race([eventually(() => redisAvailable(this.url), `redis-server on port ${this.port}`, 10_000), exited]);
  }

  /** Kills the server (SIGKILL by default) and waits until it is gone and its port refuses connections. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await gone;
    await eventually(async () => !(await redisAvailable(this.url)), `port ${this.port} to refuse connections`, 5000);
  }

  /** A short-lived client for looking at the server's keys. */
  async withClient<T>(body: (client: Redis) => Promise<T>): Promise<T> {
    const client = new IORedis(this.url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => {});
    try {
      await client.connect();
      return await body(client);
    } finally {
      client.disconnect();
    }
  }

  /** Keys matching `pattern`, sorted. */
  keys(pattern: string): Promise<string[]> {
    return this.withClient(async (client) => (await client.keys(pattern)).sort());
  }

  /** Kills the server and removes its directory. */
  async stop(): Promise<void> {
    await this.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Child processes of the tests: a long-running one (a service's entry point, the image's `pi` command, the
 * notifier) started with exactly the environment given and waited for until it listens, signalled, and seen
 * to its end; and a command run to its end with its output.
 */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '@pi/db';
import { eventually, sleep } from './wait';

/** The repository (the default working directory of every process). */
export const ROOT = path.resolve(__dirname, '../../..');

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
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
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
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${out}`);
        return waitFor.test(out);
      },
      `${name} to start`,
      opts.timeoutMs ?? 20_000,
    ).catch((err: Error) => {
      child.kill('SIGKILL'); // the caller never gets a handle to stop it: it would outlive the test run
      throw err;
    });
  }
  return running;
}

/**
 * `startProcess` listening on a free port, given to it in `portVariable`. Another process can take the port
 * between `freePort()` and the child's listen (parallel workers start services too), so a child that exits with
 * EADDRINUSE is started again on another port, up to three times.
 */
export async function startOnFreePort(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  portVariable: string,
  opts: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ process: RunningProcess; url: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      const child = await startProcess(name, command, args, { ...env, [portVariable]: String(port) }, opts);
      return { process: child, url: `http://127.0.0.1:${port}` };
    } catch (err) {
      if (attempt >= 3 || !(err as Error).message.includes('EADDRINUSE')) throw err;
    }
  }
}

/** Stops every process still running, without waiting long (cleanup after a failed test). */
export async function killAll(processes: RunningProcess[]): Promise<void> {
  for (const p of processes.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) await p.stop('SIGKILL', 5_000).catch(() => {});
  }
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  text: string;
}

/** Runs a command to its end (killing it after `timeoutMs`), with stdout and stderr together. */
export function runToExit(
  command: string,
  args: string[],
  opts: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs?: number; input?: string },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd ?? ROOT, env: opts.env, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let text = '';
    child.stdout!.on('data', (c: Buffer) => (text += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (text += c.toString('utf8')));
    if (child.stdin) {
      child.stdin.on('error', () => {}); // a command that exits without reading its input
      child.stdin.end(opts.input);
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, text });
    });
  });
}

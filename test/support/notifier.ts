/** The notifier's entry point as a real child process (faults and queue suites), on a free port, once it listens. */
import path from 'node:path';
import { ROOT, RunningProcess, startOnFreePort } from './processes';

export const NOTIFIER_ENTRY = path.join(ROOT, 'services/notifier/dist/src/main.js');

export type NotifierProcess = RunningProcess & { url: string };

/** Starts the notifier with exactly `env` (plus NODE_ENV, LOG_LEVEL and a pool unless given, and a free port). */
export async function startNotifier(env: Record<string, string>, name = 'notifier'): Promise<NotifierProcess> {
  const started = await startOnFreePort(
    name,
    process.execPath,
    [NOTIFIER_ENTRY],
    { NODE_ENV: 'test', LOG_LEVEL: 'info', DATABASE_POOL_MAX: '5', ...env },
    'NOTIFIER_PORT',
    { timeoutMs: 15_000 },
  );
  return { ...started.process, url: started.url };
}

/** Whether the process is still running. */
export const alive = (p: RunningProcess) => p.child.exitCode === null && p.child.signalCode === null;

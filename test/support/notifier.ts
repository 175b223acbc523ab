/** The notifier's entry point as a real child process (faults and queue suites), on a free port, once it listens. */
import path from 'node:path';
import { freePort } from '@pi/db';
import { ROOT, RunningProcess, startProcess } from './processes';

export const NOTIFIER_ENTRY = path.join(ROOT, 'services/notifier/dist/src/main.js');
export const CHECK_RULES_ENTRY = path.join(ROOT, 'services/monitor/dist/src/check-rules/cli.js');

export type NotifierProcess = RunningProcess & { url: string };

/** Starts the notifier with exactly `env` (plus NODE_ENV, LOG_LEVEL, a pool and a port unless given). */
export async function startNotifier(env: Record<string, string>, name = 'notifier'): Promise<NotifierProcess> {
  const port = await freePort();
  const notifier = await startProcess(
    name,
    process.execPath,
    [NOTIFIER_ENTRY],
    { NODE_ENV: 'test', LOG_LEVEL: 'info', DATABASE_POOL_MAX: '5', NOTIFIER_PORT: String(port), ...env },
    { timeoutMs: 15_000 },
  );
  return { ...notifier, url: `http://127.0.0.1:${port}` };
}

/** Whether the process is still running. */
export const alive = (p: RunningProcess) => p.child.exitCode === null && p.child.signalCode === null;

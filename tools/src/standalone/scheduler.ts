/**
 * `npm start`'s monitor schedule: runs `check_rules` (the command's own file, so the same code and advisory
 * lock) as a child process every CHECK_RULES_INTERVAL_SECONDS. Runs never overlap: the next one starts an
 * interval after the previous one started, or as soon as it ended if it took longer. A failed run is
 * reported and the next one still happens. A child process rather than a call in the launcher keeps a run
 * that crashes or leaks from taking the launcher with it; its output (and console emails) is the launcher's.
 */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const CHECK_RULES = path.resolve(__dirname, '../../../../services/monitor/dist/src/check-rules/cli.js');
/** A run in progress at shutdown gets this long to finish before it is stopped (its transaction rolls back). */
const STOP_GRACE_MS = 10_000;

export class CheckRulesScheduler {
  private stopped = false;
  private child: ChildProcess | undefined;
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly intervalSeconds: number,
    private readonly env: NodeJS.ProcessEnv,
    private readonly say: (message: string) => void,
  ) {}

  /** The first run starts now. */
  start(): void {
    this.loop = this.runForever();
  }

  /** No new run; one in progress may finish within STOP_GRACE_MS, then gets SIGTERM. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const term = setTimeout(() => child.kill('SIGTERM'), STOP_GRACE_MS);
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS + 5_000);
      await exited;
      clearTimeout(term);
      clearTimeout(kill);
    }
    await this.loop;
  }

  private async runForever(): Promise<void> {
    while (!this.stopped) {
      const started = Date.now();
      const outcome = await this.runOnce();
      if (this.stopped) break;
      if (outcome !== 'code 0') this.say(`check_rules failed (${outcome}); the next run is in ${this.intervalSeconds} s`);
      await this.sleep(Math.max(0, this.intervalSeconds * 1000 - (Date.now() - started)));
    }
  }

  private runOnce(): Promise<string> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--enable-source-maps', CHECK_RULES, '--scheduled'], { env: this.env, stdio: ['ignore', 'inherit', 'inherit'] });
      this.child = child;
      child.once('error', (err) => resolve(`could not start: ${err.message}`));
      child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }
}

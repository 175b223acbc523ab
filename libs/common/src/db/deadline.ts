/**
 * The deadline of the request being served, carried through its asynchronous work (AsyncLocalStorage), so
 * that every transaction and statement the request runs can be bounded by it without passing it around:
 * the gateway stops waiting for the answer at that moment, so work that finished later could commit a change
 * whose client was already told the outcome is unknown (docs/api/deadlines-and-retries.md).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export class Deadline {
  /** `at`: epoch milliseconds by which the work must have committed or given up. */
  constructor(readonly at: number) {}

  remainingMs(now = Date.now()): number {
    return this.at - now;
  }

  passed(now = Date.now()): boolean {
    return this.remainingMs(now) <= 0;
  }
}

const current = new AsyncLocalStorage<Deadline>();

/** Runs `fn` (and everything it starts) under `deadline`. */
export function runWithDeadline<T>(deadline: Deadline, fn: () => T): T {
  return current.run(deadline, fn);
}

/** The deadline of the request this code runs for, if any (none in background work and commands). */
export function currentDeadline(): Deadline | undefined {
  return current.getStore();
}

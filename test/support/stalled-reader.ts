/**
 * A download whose reader stopped reading, for the streamed exports: the destination, and how to see the export
 * waiting for it inside its database transaction.
 */
import { Writable } from 'node:stream';
import { count } from './sql';

/** A destination that accepts one small write and then never drains, like a client that stopped reading. */
export function stalledReader(): { stream: Writable; written: () => number } {
  let written = 0;
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, done) {
      written += chunk.length;
      if (written < 1024) done();
    },
  });
  return { stream, written: () => written };
}

/** Sessions idle inside a transaction whose last statement fetched from (or declared) a cursor named `cursor…`. */
export function idleCursorSessions(cursor: string): Promise<number> {
  return count(
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND query ~ ('(FETCH|DECLARE).*' || $1)",
    [cursor],
  );
}

/**
 * How many samples in a row (up to `wanted`, within 15 s) saw one such session. Paused means seen on several in a
 * row: one sample can fall between two FETCHes of an export that is still reading, and the next then sees it active.
 */
export async function pausedSamples(cursor: string, wanted = 5): Promise<number> {
  const deadline = Date.now() + 15_000;
  let steady = 0;
  while (steady < wanted && Date.now() < deadline) {
    steady = (await idleCursorSessions(cursor)) === 1 ? steady + 1 : 0;
    await new Promise((r) => setTimeout(r, 20));
  }
  return steady;
}

/**
 * The answers a connection still owes, so that an answer written straight to its socket goes after them: the
 * refusal of a request the parser could not read (unparsable-request.ts) or of a CONNECT (request-framing.ts).
 *
 * HTTP/1.1 answers pipelined requests in the order they came. Written at once, such a refusal was read by the
 * client as the answer to the first request still in flight (a booking, say, which went on to be booked),
 * and that request's own answer was lost. Node's own handler does the same.
 */
import type { Duplex } from 'node:stream';

interface Owed {
  count: number;
  /** What to write once nothing is owed any more. */
  then?: () => void;
}

const owedBy = new WeakMap<Duplex, Owed>();

/**
 * Counts one more answer owed on `socket`; call what it returns once that answer closes (sent, or its
 * connection gone). The caller's own `close` listener calls it, so an answer gets no second listener.
 */
export function countOwedAnswer(socket: Duplex): () => void {
  let owed = owedBy.get(socket);
  if (!owed) owedBy.set(socket, (owed = { count: 0 }));
  const entry = owed;
  entry.count++;
  return () => {
    entry.count--;
    if (entry.count > 0 || !entry.then) return;
    const then = entry.then;
    entry.then = undefined;
    then();
  };
}

/** Runs `write` now if `socket` owes no answer, else once the last one it owes is done. */
export function afterOwedAnswers(socket: Duplex, write: () => void): void {
  const owed = owedBy.get(socket);
  if (!owed || owed.count === 0) write();
  else owed.then = write;
}

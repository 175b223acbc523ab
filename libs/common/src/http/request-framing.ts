/**
 * Requests that Node's parser reads but HTTP/1.1 does not allow, refused before any app sees them, in the
 * error shape with a request id and the connection closed (docs/api/conventions.md):
 *
 * - an HTTP/1.1 request without `Host`, or with more than one (RFC 9112, section 3.2: 400). Node's own check
 *   answers a bare 400, and it lets a second `Host` through, keeping the first: a proxy in front that read
 *   the other one would have routed or cached by a host this server never saw;
 * - an `Expect` other than `100-continue`: 417 `expectation_failed` (RFC 9110, section 10.1.1), where Node
 *   answers a bare 417;
 * - `CONNECT`, which asks a proxy for a tunnel: 405. Node would close the connection without an answer.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { afterOwedAnswers, countOwedAnswer } from './owed-answers';
import { wellFormedRequestId } from './request-id';
import { rawRefusalAnswer, refusalParts, type Refusal } from './unparsable-request';

/** Every method some path of the API takes: the `Allow` of a CONNECT, which names no path. */
const API_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

const malformed = (headers: string): Refusal => ({ status: 400, code: 'validation_error', error: 'Malformed HTTP request.', details: { headers } });

/** Why the request's `Host` breaks HTTP/1.1's rule, if it does. */
export function hostRefusal(req: http.IncomingMessage): Refusal | undefined {
  let hosts = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') hosts++;
  if (hosts > 1) return malformed('Host must appear once');
  if (hosts === 0 && req.httpVersion === '1.1') return malformed('Host is required in an HTTP/1.1 request');
  return undefined;
}

/** Answers `refusal` on `res` and closes the connection after it. */
export function answerRefusal(req: http.IncomingMessage, res: http.ServerResponse, refusal: Refusal): void {
  const { body, headers } = refusalParts(refusal, wellFormedRequestId(req.headers['x-request-id']));
  res.writeHead(refusal.status, headers);
  res.end(body);
}

/** A server's `checkExpectation` listener: Node calls it for an `Expect` other than `100-continue`. */
export function answerExpectation(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.once('close', countOwedAnswer(req.socket)); // Node emits no 'request' for it, where answers are counted
  answerRefusal(req, res, {
    status: 417,
    code: 'expectation_failed',
    error: 'The Expect header asks for what this server does not do.',
    details: { headers: 'Expect may only be 100-continue' },
  });
}

/** A server's `connect` listener: this server is no proxy. Answered after what the connection still owes. */
export function answerConnect(_req: http.IncomingMessage, socket: Duplex): void {
  const answer = rawRefusalAnswer({
    status: 405,
    code: 'method_not_allowed',
    error: 'Method CONNECT not allowed.',
    details: { allowed_methods: API_METHODS },
    headers: { Allow: API_METHODS.join(', ') },
  });
  afterOwedAnswers(socket, () => (socket.writable ? socket.end(answer) : socket.destroy()));
}

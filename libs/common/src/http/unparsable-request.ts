/**
 * The answer to a request that Node's HTTP parser refused before any app saw it: a control character in a
 * header value, a malformed request line or header name, headers over Node's size limit, headers that took
 * longer than the server's `headersTimeout`. Node's own answer is a bare status line with no body; this one
 * is in the error shape with a request id, as every other refusal is (docs/api/conventions.md).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { afterOwedAnswers } from './owed-answers';

interface ParserError extends Error {
  code?: string;
}

/** An answer in the error shape to a request refused before any app saw it. */
export interface Refusal {
  status: number;
  code: string;
  error: string;
  details: Record<string, unknown>;
  /** Headers of the answer besides its type, length, request id and `Connection: close`. */
  headers?: Record<string, string>;
}

function refusalOf(err: ParserError): Refusal {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: 'headers_too_large',
        error: 'The request headers are too large.',
        details: { headers: `the headers are larger than ${http.maxHeaderSize} bytes` },
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'payload_too_large', error: 'The request body is too large.', details: { body: 'its chunk extensions are too large' } };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', error: 'The request headers did not arrive in time.', details: {} };
    // A header name or value with a character HTTP does not allow (a control character, say).
    case 'HPE_INVALID_HEADER_TOKEN':
      return {
        status: 400,
        code: 'validation_error',
        error: 'Malformed HTTP request.',
        details: { headers: 'a header name or value holds a character HTTP does not allow' },
      };
    default:
      return { status: 400, code: 'validation_error', error: 'Malformed HTTP request.', details: { request: 'is not a well-formed HTTP/1.1 request' } };
  }
}

/** A refusal's body and headers, closing the connection: what follows on it cannot be trusted to be framed. */
export function refusalParts(refusal: Refusal, requestId: string = randomUUID()): { body: string; headers: Record<string, string> } {
  const { error, code, details } = refusal;
  const body = JSON.stringify({ error, code, details, request_id: requestId });
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': requestId,
    ...refusal.headers,
    Connection: 'close',
  };
  return { body, headers };
}

/** A refusal as the whole HTTP answer, for a socket no `ServerResponse` writes to. */
export function rawRefusalAnswer(refusal: Refusal): string {
  const { body, headers } = refusalParts(refusal);
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return [`HTTP/1.1 ${refusal.status} ${http.STATUS_CODES[refusal.status]}`, ...lines, '', body].join('\r\n');
}

/** The whole HTTP answer, closing the connection (the parser cannot read on after what it refused). */
export function unparsableRequestAnswer(err: ParserError): string {
  return rawRefusalAnswer(refusalOf(err));
}

/**
 * A server's `clientError` listener. The answer goes after those the connection still owes to the requests
 * before the one refused (owed-answers.ts), and the connection is closed: nothing after it can be read.
 */
export function answerUnparsableRequest(err: ParserError, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  afterOwedAnswers(socket, () => (socket.writable ? socket.end(unparsableRequestAnswer(err)) : socket.destroy()));
}

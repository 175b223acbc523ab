/**
 * JSON logging (pino). Anything that can hold a secret is redacted by path, and URLs are scrubbed of the
 * query parameters that carry credentials (`api_key`, `token`), so a secret never reaches a log line.
 */
import pino, { Logger } from 'pino';

export type { Logger };

const SECRET_QUERY_PARAMS = ['api_key', 'token', 'refresh', 'password'];

const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-internal-auth"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.api_key',
  '*.key',
  '*.secret',
  '*.token',
  '*.access',
  '*.refresh',
];

/** `destination` defaults to stdout; tests pass a stream to read what was logged. */
export function createLogger(service: string, level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Replaces the values of credential-bearing query parameters with `[redacted]`. */
export function scrubUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const name of SECRET_QUERY_PARAMS) {
    if (params.has(name)) {
      params.set(name, '[redacted]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}

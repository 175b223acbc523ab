/**
 * JSON logging (pino). No secret reaches a log line, whoever logs it and however the client spelled it
 * (docs/api/conventions.md "Logs"). Two rules, applied to every finished line (pino's `streamWrite` hook, so that nothing a
 * serializer, a child's bindings or an error's stack adds escapes them):
 * - by what a value is: anything shaped like one of our API keys (`pik_…`), a JWT (access, refresh, internal
 *   and QR redirect tokens), a notification channel secret (`whsec_…`) or a bearer credential is replaced,
 *   wherever it stands: a field, a message, a stack, a URL's path or query, percent-encoded or not;
 * - by name: the value of a field or of a URL query parameter whose name is a secret's, in any case, spelling
 *   or nesting (`password`, `api_key`, `API_KEY`, `api_key[]`, `api_key[0]`, `filter[token]`, `x-api-key`,
 *   `apiKey`, `refresh`, `client_secret`, `authorization`, `cookie`…), is replaced, whatever it looks like.
 */
import pino, { Logger } from 'pino';
import { traceLogFields, tracingEnabled } from './tracing/state';

export type { Logger };

export const REDACTED = '[redacted]';

/** Our API keys, JWTs (three base64url parts, the first a JSON header), channel secrets, bearer credentials. */
const SECRET_SHAPES = [/pik_[A-Za-z0-9_-]+/g, /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, /whsec_[A-Za-z0-9_-]+/g, /\bBearer\s+[^\s",;&]+/gi];

/** Names (lower case, letters and digits only) that are secrets on their own. */
const SECRET_NAMES = new Set(['key', 'access', 'refresh', 'auth', 'authorization', 'proxyauthorization', 'cookie', 'setcookie', 'xinternalauth', 'jwt', 'pwd']);
/** …that make a name a secret's wherever they stand in it (`new_password`, `client_secret`). */
const SECRET_PARTS = ['password', 'passwd', 'secret'];
/** …and at its end (`api_key`, `x-api-key`, `apiKey`, `refresh_token`, `qr_token`; not `api_key_id`). */
const SECRET_ENDINGS = ['token', 'apikey'];

/**
 * True for the name of a secret: each part of a nested name (`filter[token]`, `api_key[0]`, `a.b`) is compared
 * in lower case with its punctuation removed.
 */
export function isSecretName(name: string): boolean {
  return name.split(/[[\].]+/).some((part) => {
    const n = part.toLowerCase().replace(/[^a-z0-9]/g, '');
    return n !== '' && (SECRET_NAMES.has(n) || SECRET_PARTS.some((p) => n.includes(p)) || SECRET_ENDINGS.some((e) => n.endsWith(e)));
  });
}

/** True when text holds something shaped like a secret. */
function hasSecretShape(text: string): boolean {
  return SECRET_SHAPES.some((shape) => {
    shape.lastIndex = 0;
    return shape.test(text);
  });
}

/** Replaces every secret-shaped part of a text. */
export function redactSecretShapes(text: string): string {
  let out = text;
  for (const shape of SECRET_SHAPES) out = out.replace(shape, REDACTED);
  return out;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * A URL (or a path with a query) fit for a log: the value of each query parameter with a secret's name, or
 * holding a secret's shape (also percent-encoded), becomes `[redacted]`, and so does a secret-shaped part of
 * the path (written decoded, then).
 */
export function scrubUrl(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const cleanPath = hasSecretShape(decoded(path)) ? redactSecretShapes(decoded(path)) : path;
  if (q < 0) return cleanPath;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  const kept: string[] = [];
  for (const [name, value] of params) {
    const secret = isSecretName(name) || hasSecretShape(value) || hasSecretShape(name);
    if (secret) changed = true;
    kept.push(`${encodeURIComponent(redactSecretShapes(name))}=${secret ? REDACTED : encodeURIComponent(value)}`);
  }
  return `${cleanPath}?${changed ? kept.join('&') : url.slice(q + 1)}`;
}

const MAX_DEPTH = 12;

/** A copy of a parsed log line with every value under a secret's name replaced and every URL-like string scrubbed. */
function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.includes('?') ? scrubUrl(value) : value;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSecretName(k) && v !== null && v !== '' ? REDACTED : redactValue(v, depth + 1);
  return out;
}

/** What `streamWrite` makes of each finished line: names first (on the parsed line), then shapes (on the text). */
export function redactLogLine(line: string): string {
  let out = line;
  try {
    out = `${JSON.stringify(redactValue(JSON.parse(line), 0))}\n`;
  } catch {
    // Not JSON (never, with pino): the shapes below still apply.
  }
  return redactSecretShapes(out);
}

/** `destination` defaults to stdout; tests pass a stream to read what was logged. */
export function createLogger(service: string, level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    hooks: { streamWrite: redactLogLine },
    timestamp: pino.stdTimeFunctions.isoTime,
    // With tracing on, each line also names its trace (the request id stays the key: docs/operations/tracing.md).
    ...(tracingEnabled() ? { mixin: traceLogFields } : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}

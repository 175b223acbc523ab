/**
 * What every fuzzed answer must keep: never a 5xx (nor a dropped connection), every error in the error shape
 * with the request id of its `X-Request-Id` header, and a refused request changes nothing: the rows of each of
 * the companies' tables (count and content), the ledger's sum, the stock balances, and the number of
 * companies and users anywhere.
 */
import { isUtf8 } from 'node:buffer';
import http from 'node:http';
import { QueryTypes } from 'sequelize';
import { cleanPathname, splitTarget } from '@pi/common';
import { system } from '../../support/hooks';
import type { FuzzRequest } from './generate';
import { percentEncode } from './values';

/** Company-scoped tables, with the columns that only a request itself may change. */
const TABLES: Array<[table: string, columns: string]> = [
  ['companies', 'id, name'],
  ['users', 'id, username, email, password_hash, role, is_active'],
  // Usage counters move with every authenticated request, refused or not (docs/api/authentication.md "Usage").
  ['api_keys', 'id, name, prefix, key_hash, permissions, allowed_domains, tier, is_widget_key, expires_at, revoked_at'],
  ['locations', '*'],
  ['product_models', '*'],
  ['batches', '*'],
  ['physical_items', '*'],
  ['work_orders', '*'],
  ['stock_movements', '*'],
  ['stock_balances', '*'],
  ['idempotency_keys', '*'],
  ['qr_codes', '*'],
  ['monitoring_rules', '*'],
  ['event_log', '*'],
  ['notification_channels', '*'],
  ['notification_deliveries', '*'],
  ['notification_attempts', '*'],
];

/** One string that changes whenever anything a request could change does, for the given companies. */
export async function snapshot(companyIds: string[]): Promise<string> {
  const parts = TABLES.map(([table, columns]) => {
    const scope = table === 'companies' ? 'id' : 'company_id';
    // A sum of row hashes: independent of row order, so no sort, and cheap enough to take after every request.
    return `(SELECT count(*) || ':' || COALESCE(sum(hashtextextended(r::text, 0)::numeric), 0)
               FROM (SELECT ${columns} FROM ${table} WHERE ${scope} = ANY($1::uuid[])) r) AS ${table}`;
  });
  const [row] = await system().db.sequelize.query<Record<string, string>>(
    `SELECT ${parts.join(',\n')},
            (SELECT COALESCE(SUM(quantity), 0)::text FROM stock_movements WHERE company_id = ANY($1::uuid[])) AS ledger_sum,
            (SELECT count(*) FROM companies) AS all_companies,
            (SELECT count(*) FROM users) AS all_users`,
    { bind: [companyIds], type: QueryTypes.SELECT },
  );
  return JSON.stringify(row);
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** The agent of requests sent one at a time; `send` takes another for requests sent together. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/**
 * The request target as spelled, only what a request line cannot hold (space, controls, anything beyond ASCII)
 * percent-encoded as its UTF-8 bytes. Given a URL instead, Node's http.request parses it as browsers do: it
 * took out dot segments (`/go/./x/` went as `/go/x/`) and turned `\` into `/`, so the gateway never saw
 * those spellings while the checks judged the answer by them.
 */
const asSpelled = (target: string) => percentEncode(target, /[\u0021-\u007e]/);

/**
 * Sends the request to the test gateway as a raw client would: any method with any body, header values as
 * their UTF-8 bytes, the path as spelled. A dropped connection or a hang (30 s) is an error.
 */
export function send(request: FuzzRequest, through: http.Agent = agent): Promise<Answer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = Buffer.from(value, 'utf8').toString('latin1');
  const body = request.body === undefined ? undefined : Buffer.from(request.body, request.bodyEncoding ?? 'utf8');
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(system().url);
    const target = { host: hostname, port, path: asSpelled(request.url) };
    const req = http.request({ ...target, method: request.method, headers, agent: through, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        if (!res.complete) return reject(new Error('the answer was cut off'));
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (value !== undefined) answerHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve({ status: res.statusCode ?? 0, headers: answerHeaders, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * What the system was doing when a request went unanswered, for the failure report: the log lines written
 * since `sinceLine`, and the database's sessions that were not idle (a lock wait shows there with its query).
 */
export async function hangReport(sinceLine: number): Promise<string> {
  const lines = system()
    .logs.lines.slice(sinceLine)
    .map((line) => line.trim().slice(0, 500));
  const sessions = await system().db.sequelize.query<Record<string, string>>(
    `SELECT pid, application_name, state, wait_event_type, wait_event, now() - xact_start AS in_transaction, left(query, 200) AS query
       FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`,
    { type: QueryTypes.SELECT },
  );
  const logPart = lines.length ? lines.join('\n    ') : '(none)';
  const sessionPart = sessions.length ? sessions.map((s) => JSON.stringify(s)).join('\n    ') : '(none)';
  return `log lines meanwhile:\n    ${logPart}\n  database sessions not idle:\n    ${sessionPart}`;
}

/** Whether a name or value of the URL's query is not valid percent-encoding of UTF-8 text (`50%`, `%ff`). */
function badlySpelledQuery(url: string): boolean {
  const q = url.indexOf('?');
  if (q < 0) return false;
  return url
    .slice(q + 1)
    .split(/[&=]/)
    .some((component) => {
      try {
        decodeURIComponent(component);
        return false;
      } catch {
        return true;
      }
    });
}

/** Problems of one answer, given the state before and after it (empty when it is fine). */
export function problemsOf(request: FuzzRequest, answer: Answer, before: string, after: string): string[] {
  const problems = answerProblems(request, answer);
  if (answer.status >= 400 && before !== after) problems.push(`a refused request (${answer.status}) changed the database: ${diff(before, after)}`);
  return problems;
}

/** Problems of one answer in itself: a 5xx, a body or query that should have been refused, an error out of shape. */
export function answerProblems(request: FuzzRequest, answer: Answer): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`answered ${answer.status}`);
  // Bytes that are not UTF-8 (and a Content-Type that names no other charset) are never taken: they would be stored as U+FFFD.
  if (request.bodyEncoding === 'latin1' && !isUtf8(Buffer.from(request.body ?? '', 'latin1')) && answer.status < 400) {
    problems.push(`took a body that is not UTF-8 (${answer.status})`);
  }
  if (badlySpelledQuery(request.url) && answer.status < 400) problems.push(`took a query spelled as no UTF-8 text is (${answer.status})`);
  if (answer.status >= 400) problems.push(...errorShapeProblems(request, answer));
  return problems;
}

/** Whether the gateway reads the URL's path as one under `/go/` (`/%67o/…` included: unreserved escapes are decoded). */
function goPath(url: string): boolean {
  const clean = cleanPathname(splitTarget(url).pathname);
  return 'path' in clean && clean.path.startsWith('/go/');
}

/** The one error answer that is not JSON: the scan redirect's HTML page for an unknown code. */
const htmlErrorPage = (request: FuzzRequest, answer: Answer) =>
  goPath(request.url) && answer.status === 404 && /^text\/html/.test(answer.headers.get('content-type') ?? '');

function errorShapeProblems(request: FuzzRequest, answer: Answer): string[] {
  if (request.method === 'HEAD' || htmlErrorPage(request, answer)) return [];
  const type = answer.headers.get('content-type') ?? '';
  if (!/^application\/json/.test(type)) return [`error answer is ${type || 'untyped'}, not JSON: ${answer.text.slice(0, 200)}`];
  let body: any;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [`error answer is not valid JSON: ${answer.text.slice(0, 200)}`];
  }
  const problems: string[] = [];
  if (typeof body?.error !== 'string' || !body.error) problems.push('error answer lacks `error`');
  if (typeof body?.code !== 'string' || !body.code) problems.push('error answer lacks `code`');
  if (!body?.details || typeof body.details !== 'object' || Array.isArray(body.details)) problems.push('error answer lacks an object `details`');
  if (typeof body?.request_id !== 'string' || body.request_id !== answer.headers.get('x-request-id')) {
    problems.push(`error answer's request_id ${JSON.stringify(body?.request_id)} is not its X-Request-Id ${answer.headers.get('x-request-id')}`);
  }
  return problems;
}

function diff(before: string, after: string): string {
  const a = JSON.parse(before) as Record<string, string>;
  const b = JSON.parse(after) as Record<string, string>;
  return Object.keys(a)
    .filter((k) => a[k] !== b[k])
    .map((k) => `${k} ${a[k]} → ${b[k]}`)
    .join('; ');
}

/** The request as a failure report shows it (long bodies cut). */
export function describeRequest(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? ''
      : `\n  body (${request.body.length} chars, ${request.bodyEncoding ?? 'utf8'}): ${JSON.stringify(request.body.slice(0, 400))}`;
  return `${request.method} ${request.url.slice(0, 600)}\n  headers: ${JSON.stringify(request.headers)}${body}\n  bent: ${request.notes.join('; ')}`;
}

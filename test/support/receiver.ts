/**
 * A real HTTP webhook receiver on 127.0.0.1 for the monitor and notification suites: it records every request
 * and answers what `respond` decides (by default `status`, with a short text body).
 */
import http from 'node:http';

export interface ReceivedRequest {
  method: string;
  /** The request target (path and query), e.g. `/hooks/inventory`. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, exactly as received (UTF-8), as signed. */
  body: string;
}

export interface Answer {
  status: number;
  body?: string;
  /** Default `application/json`. */
  contentType?: string;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** The status the default `respond` answers (default 200). */
  status: number;
  /** Decides each answer; by default `status` with `thanks` (below 300) or `receiver failed` as text. */
  respond: (req: ReceivedRequest, index: number) => Answer | Promise<Answer>;
  /** Resolves once `count` requests have arrived (their answers may still be pending). */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(status = 200): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const receiver: Partial<Receiver> = {
    requests,
    status,
    respond: () => ({ status: receiver.status!, body: receiver.status! < 300 ? 'thanks' : 'receiver failed', contentType: 'text/plain' }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    const onEnd = async (): Promise<void> => {
      const record: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = requests.push(record) - 1;
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      try {
        const answer = await receiver.respond!(record, index);
        if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
        if (!res.destroyed) res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' }).end(answer.body ?? '');
      } catch {
        if (!res.destroyed) res.writeHead(500).end();
      }
    };
    req.on('end', () => void onEnd());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  receiver.url = `http://127.0.0.1:${port}/hooks/inventory`;
  receiver.waitForRequests = (count, timeoutMs = 10_000) =>
    new Promise<void>((resolve, reject) => {
      if (requests.length >= count) return resolve();
      const timer = setTimeout(() => reject(new Error(`receiver got ${requests.length} request(s), expected ${count}, within ${timeoutMs} ms`)), timeoutMs);
      waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver as Receiver;
}

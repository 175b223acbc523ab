/**
 * A real OTLP/HTTP trace receiver on 127.0.0.1 for the tracing suite: it accepts what the services' OTLP
 * exporter posts to `/v1/traces` (JSON, the encoding we ship) and keeps every span with its process's
 * `service.name`. It answers 200 `{}` like a collector.
 */
import http from 'node:http';
import { eventually } from './wait';

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP span kinds: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter adds `/v1/traces`). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every body received, as text (to look for what must never be exported). */
  bodies: string[];
  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[];
  /** Waits until `found` answers true on the spans received so far. */
  waitFor(what: string, found: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const valueOf = (v: OtlpValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ''));

const attributesOf = (list: OtlpAttribute[] | undefined) => Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      bodies.push(text);
      try {
        const body = JSON.parse(text) as {
          resourceSpans?: Array<{ resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }>;
        };
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                service,
                traceId: String(s.traceId),
                spanId: String(s.spanId),
                parentSpanId: `${(s.parentSpanId ?? '') as string}`,
                name: String(s.name),
                kind: Number(s.kind),
                attributes: attributesOf(s.attributes as OtlpAttribute[]),
              });
            }
          }
        }
      } catch {
        return void res.writeHead(400, { 'content-type': 'application/json' }).end('{}');
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    trace: (traceId) => spans.filter((s) => s.traceId === traceId),
    waitFor: async (what, found, timeoutMs = 15_000) => {
      await eventually(() => found(spans), what, timeoutMs);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

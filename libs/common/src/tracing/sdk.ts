/**
 * The OpenTelemetry SDK of a traced process (docs/operations/tracing.md), loaded by `startTracing` only when
 * tracing is on. It instruments HTTP (server spans, and the gateway's proxy requests as client spans that
 * carry `traceparent`), Express (the matched route) and pg (one span per SQL statement; Sequelize runs on pg),
 * and exports in batches with OTLP over HTTP (JSON) or to the console. Sampling, batching and the exporter's
 * endpoint, headers and timeout follow the standard OTEL_* variables, which the SDK reads itself.
 */
import { SpanKind, context, propagation, trace, ROOT_CONTEXT } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { ScrubbingSpanProcessor } from './scrub';
import type { TraceExporterKind } from './settings';
import { installTracingRuntime } from './state';

/** Requests that are not work: probes and metrics scrapes make no spans. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Query parameters whose values never reach a span, on top of the scrubbing of every attribute (scrub.ts). */
const REDACTED_QUERY_PARAMS = ['api_key', 'token', 'key', 'access', 'refresh', 'password', 'secret', 'sig', 'signature', 'code'];

export interface SdkOptions {
  serviceName: string;
  exporter: TraceExporterKind;
}

export function installTracing(opts: SdkOptions): void {
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: opts.serviceName }).merge(detectResources({ detectors: [envDetector] }));
  const exporting = new BatchSpanProcessor(opts.exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new ScrubbingSpanProcessor(), exporting] });
  // The W3C trace context (and baggage) propagator, and the AsyncLocalStorage context manager.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]),
        redactedQueryParams: REDACTED_QUERY_PARAMS,
        redactedQueryParamsServer: REDACTED_QUERY_PARAMS,
      }),
      // Route and router spans; a span per middleware would be most of a trace and say little.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Pool checkouts are not spans of their own; the queries are.
      new PgInstrumentation({ ignoreConnectSpans: true }),
    ],
  });
  installTracingRuntime({
    serviceName: opts.serviceName,
    trace,
    context,
    propagation,
    rootContext: ROOT_CONTEXT,
    spanKind: SpanKind,
    suppressTracing,
    shutdown: () => provider.shutdown(),
  });
}

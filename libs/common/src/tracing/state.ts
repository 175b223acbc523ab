/**
 * What the rest of the code asks of tracing, cheap when it is off (docs/operations/tracing.md): whether it is
 * on, a span around a piece of work, the current trace context to put in a queue job, running code whose
 * outgoing HTTP must not carry trace headers, the ids for a log line, and the flush at shutdown.
 *
 * This module loads nothing of OpenTelemetry: `sdk.ts` installs a runtime here when tracing starts. Until
 * then (and in every process where it is off) each helper is one check of a variable, and `withSpan` calls
 * the work directly.
 */
import type {
  Attributes,
  Context,
  Span,
  SpanKind,
  TextMapGetter,
  TextMapSetter,
  context as ContextApi,
  propagation as PropagationApi,
  trace as TraceApi,
} from '@opentelemetry/api';

/** The pieces of the API and SDK the helpers use, set by `installTracingRuntime`. */
export interface TracingRuntime {
  serviceName: string;
  trace: typeof TraceApi;
  context: typeof ContextApi;
  propagation: typeof PropagationApi;
  rootContext: Context;
  spanKind: typeof SpanKind;
  /** `@opentelemetry/core`'s suppressTracing: no span and no injected header below this context. */
  suppressTracing(ctx: Context): Context;
  /** Exports what is buffered and stops the provider. */
  shutdown(): Promise<void>;
}

let runtime: TracingRuntime | undefined;

export function installTracingRuntime(r: TracingRuntime): void {
  runtime = r;
}

/** True once this process started tracing. */
export function tracingEnabled(): boolean {
  return runtime !== undefined;
}

/** The W3C trace context of the current span, as carried in a job or header set. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

const setter: TextMapSetter<TraceCarrier> = {
  set: (carrier, key, value) => {
    if (key === 'traceparent' || key === 'tracestate') carrier[key] = value;
  },
};
const getter: TextMapGetter<TraceCarrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => (key === 'traceparent' || key === 'tracestate' ? carrier[key] : undefined),
};

/** The current trace context (`{traceparent, tracestate?}`), or `{}` when tracing is off or nothing is traced now. */
export function currentTraceCarrier(): TraceCarrier {
  if (!runtime) return {};
  const carrier: TraceCarrier = {};
  runtime.propagation.inject(runtime.context.active(), carrier, setter);
  return carrier;
}

/** What the work inside `withSpan` may add to its span (nothing, when tracing is off). */
export interface SpanHandle {
  setAttributes(attributes: Attributes): void;
}

const NO_SPAN: SpanHandle = { setAttributes: () => {} };

export type WorkKind = 'internal' | 'client' | 'producer' | 'consumer';

export interface SpanOptions {
  kind?: WorkKind;
  attributes?: Attributes;
  /**
   * Continue the trace of this carrier (a queue job's) instead of the current context; a carrier without a
   * valid traceparent starts a new trace.
   */
  parent?: TraceCarrier;
}

const KIND_NAMES: Record<WorkKind, keyof typeof SpanKind> = { internal: 'INTERNAL', client: 'CLIENT', producer: 'PRODUCER', consumer: 'CONSUMER' };

/**
 * Runs `work` inside a span named `name` (ended when it settles; a thrown error is recorded on it). With
 * tracing off, runs `work` with a handle that records nothing.
 */
export async function withSpan<T>(name: string, opts: SpanOptions, work: (span: SpanHandle) => Promise<T>): Promise<T> {
  const r = runtime;
  if (!r) return work(NO_SPAN);
  const parent = opts.parent ? r.propagation.extract(r.rootContext, opts.parent, getter) : r.context.active();
  const tracer = r.trace.getTracer(r.serviceName);
  return tracer.startActiveSpan(name, { kind: r.spanKind[KIND_NAMES[opts.kind ?? 'internal']], attributes: opts.attributes }, parent, async (span: Span) => {
    try {
      return await work(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: 2 /* SpanStatusCode.ERROR */, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `work` so that the HTTP requests it makes carry no trace headers and make no spans: for requests to
 * other parties (webhook receivers), to whom our trace ids mean nothing.
 */
export function withoutTracePropagation<T>(work: () => T): T {
  const r = runtime;
  if (!r) return work();
  return r.context.with(r.suppressTracing(r.context.active()), work);
}

/** `{trace_id, span_id}` of the current span for a log line, or nothing. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const r = runtime;
  if (!r) return {};
  const span = r.trace.getSpan(r.context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  if (/^0+$/.test(traceId)) return {}; // no trace here (e.g. inside withoutTracePropagation)
  return { trace_id: traceId, span_id: spanId };
}

/** Exports the spans still buffered and stops tracing; a no-op when it is off. Call it last at shutdown. */
export async function shutdownTracing(): Promise<void> {
  const r = runtime;
  if (!r) return;
  await r.shutdown().catch(() => {});
}

/** What the services use of tracing through `@pi/common` (cheap when it is off; see state.ts). Start it with start.ts. */
export { tracingEnabled, currentTraceCarrier, withSpan, withoutTracePropagation, traceLogFields, shutdownTracing } from './state';
export type { TraceCarrier, SpanHandle, SpanOptions, WorkKind } from './state';
export { tracingSettingsFrom } from './settings';
export type { TracingSettings, TraceExporterKind } from './settings';

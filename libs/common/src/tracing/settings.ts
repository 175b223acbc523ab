/**
 * Whether this process traces, from the standard OpenTelemetry variables (docs/operations/tracing.md). Read
 * here, once, before anything else loads: the SDK must be in place before the modules it instruments are
 * required, so this cannot wait for the service's own config module. Nothing of OpenTelemetry is loaded to
 * decide it.
 *
 * Tracing is on when an exporter is named (`OTEL_TRACES_EXPORTER=otlp` or `console`), or, with no exporter
 * named, when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`).
 * `OTEL_SDK_DISABLED=true` and `OTEL_TRACES_EXPORTER=none` turn it off whatever else is set. The specification
 * makes `otlp` the default exporter; we do not, so that a process with no OTEL_* variable does no tracing
 * work at all.
 */
import Joi from 'joi';
import { ConfigError } from '../config/load';

export type TraceExporterKind = 'otlp' | 'console';

export type TracingSettings = { enabled: false } | { enabled: true; exporter: TraceExporterKind; serviceName: string };

/** The OTLP encoding the exporter we ship speaks (OTLP over HTTP, JSON bodies). */
const SUPPORTED_PROTOCOL = 'http/json';

const schema = Joi.object({
  OTEL_SDK_DISABLED: Joi.boolean().default(false),
  OTEL_TRACES_EXPORTER: Joi.string().trim().lowercase().valid('otlp', 'console', 'none').empty(''),
  OTEL_EXPORTER_OTLP_ENDPOINT: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .empty(''),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .empty(''),
  OTEL_EXPORTER_OTLP_PROTOCOL: Joi.string()
    .valid(SUPPORTED_PROTOCOL)
    .empty('')
    .messages({ 'any.only': `"OTEL_EXPORTER_OTLP_PROTOCOL" must be ${SUPPORTED_PROTOCOL} (the only OTLP encoding shipped)` }),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: Joi.string()
    .valid(SUPPORTED_PROTOCOL)
    .empty('')
    .messages({ 'any.only': `"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" must be ${SUPPORTED_PROTOCOL} (the only OTLP encoding shipped)` }),
  OTEL_SERVICE_NAME: Joi.string().trim().max(200).empty(''),
});

interface TracingEnv {
  OTEL_SDK_DISABLED: boolean;
  OTEL_TRACES_EXPORTER?: TraceExporterKind | 'none';
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_SERVICE_NAME?: string;
}

/**
 * The tracing settings of a process named `service` (`gateway`, `inventory`…; the span resource's
 * `service.name` is `pi-<service>` unless OTEL_SERVICE_NAME says otherwise). Throws ConfigError naming every
 * bad variable.
 */
export function tracingSettingsFrom(env: NodeJS.ProcessEnv, service: string): TracingSettings {
  const result: Joi.ValidationResult<unknown> = schema.validate(env, { abortEarly: false, allowUnknown: true, stripUnknown: true, convert: true });
  const { error } = result;
  const value: unknown = result.value;
  if (error) throw new ConfigError(error.details.map((d) => d.message));
  const v = value as TracingEnv;
  if (v.OTEL_SDK_DISABLED || v.OTEL_TRACES_EXPORTER === 'none') return { enabled: false };
  const exporter = v.OTEL_TRACES_EXPORTER ?? (v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || v.OTEL_EXPORTER_OTLP_ENDPOINT ? 'otlp' : undefined);
  if (!exporter) return { enabled: false };
  return { enabled: true, exporter, serviceName: v.OTEL_SERVICE_NAME ?? `pi-${service}` };
}
